import type { Entry } from '../schemas/entry.js';

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
}
