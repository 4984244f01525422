import type { Entry } from '../schemas/entry.js';

/** The last `GapTooOld` raised for a gap (rule 5), kept on its oldest parked entry: see `ParkedEntryDocument.gapAlert`. */
export interface GapAlertMark {
  /** ISO time the alert was raised. */
  alertedAt: string;
  /** The gap's first missing sequence (`lastSequence + 1`) it was raised for. */
  missingSequence: number;
}

/**
 * A parked entry (rule 5), one document per sequence (`id = parked:<sequence>`), no TTL: parked entries are
 * never dropped. Kept out of the order document on purpose: the order document is rewritten by every step,
 * and a long gap may hold many entries, so inlining them would make each write grow with the backlog (and
 * could reach the 2 MB item limit). The order document keeps only a small index (`parked`), which is enough
 * for rule 4 and the GET view; draining costs one point read per parked entry, on the rare path only.
 */
export interface ParkedEntryDocument {
  id: string;
  docType: 'parked';
  orderId: string;
  sequence: number;
  entryId: string;
  requestHash: string;
  entry: Entry;
  /** The ledger it came from (`correlationId`), carried on to the outbox. */
  correlationId: string | undefined;
  /** Optional: a store may drop an undefined field on the way through. */
  messageId?: string;
  /** W3C `traceparent` of the message that carried the entry, carried on to its outbox record when drained. */
  traceparent?: string;
  /**
   * The `resubmitCount` application property of the message that carried the entry (rule 10), kept so that a
   * rejection can hand it on to its `rejected` record. Absent = 0 (also on documents older than this field).
   */
  resubmitCount?: number;
  parkedAt: string;
  /**
   * Set by the gap timer on the gap's oldest parked entry when it raises `GapTooOld` (see `gapAlertDue`). Here, not
   * on the order document: that one is replaced under its ETag by every step of the order's session, so marking it
   * would fail the session's next commit (and a busy order's commits would keep beating the mark). This document is
   * written once and only ever deleted (by the drain), so a conditional write of the mark races nothing but the drain
   * that ends the gap, and no later write can drop it. The oldest parked entry stays behind the gap until the order
   * moves past it, so the mark stays with the gap.
   */
  gapAlert?: GapAlertMark;
}
