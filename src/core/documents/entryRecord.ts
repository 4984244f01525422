import type { DeadLetterReason } from '../deadLetterReasons.js';
import type { OrderCloudEvent } from '../outbox/orderCloudEvent.js';
import type { Entry, EntryType } from '../entryTypes/registry.js';

/** What became of the entry behind an {@link EntryRecord}. */
export const EntryStatus = { Applied: 'applied', Parked: 'parked', Rejected: 'rejected' } as const;
/** One of {@link EntryStatus}. */
export type EntryStatus = (typeof EntryStatus)[keyof typeof EntryStatus];

/** What every entry record holds, whatever its status. */
interface EntryRecordFields {
  /** `entry:<consumer>:<entryId>` (see `entryRecordId`). */
  id: string;
  docType: 'entry';
  orderId: string;
  entryId: string;
  sequence: number;
  /** The request hash of the entry (rules 2/3 compare it). */
  requestHash: string;
  /** `ledgerId` of the entry (the message's `correlationId`), for tracing and resubmission (rule 10). */
  correlationId: string | undefined;
  /**
   * W3C `traceparent` of the message that carried the entry, when it had one: the relay continues the entry's trace
   * on `order-events` and the webhook, on any instance and after any replay.
   */
  traceparent?: string;
}

/**
 * An applied entry: its key (rules 2–4, for good) and its event, fixed at commit and never changed after — the stored
 * event the relay reads whole from the change feed. The event, its key and `committedAt` are those every relay and
 * replay sends (docs/architecture.md, "Documents").
 */
export interface AppliedEntryRecord extends EntryRecordFields {
  status: 'applied';
  type: EntryType;
  /** ISO time (ms) of the batch that applied the entry: the event's `time`, and the start of the relay's lag. */
  committedAt: string;
  event: OrderCloudEvent;
  /** `evt-…`: `messageId` on `order-events`, `Idempotency-Key` and `webhook-id` on the webhook. */
  key: string;
}

/** The last `GapTooOld` raised for a gap (rule 5), kept on its oldest parked entry's record. */
export interface GapAlertMark {
  /** ISO time the alert was raised. */
  alertedAt: string;
  /** The gap's first missing sequence (`lastSequence + 1`) it was raised for. */
  missingSequence: number;
}

/**
 * A parked entry (rule 5): the entry itself and where it came from, until the drain replaces the record, under its
 * ETag, with the applied or rejected form. Never dropped. The order keeps a small index of it (`parked`).
 */
export interface ParkedEntryRecord extends EntryRecordFields {
  status: 'parked';
  entry: Entry;
  /** Optional: a store may drop an undefined field on the way through. */
  messageId?: string;
  /** The `resubmitCount` of the message that carried it (rule 10), handed on to a rejection. Absent = 0. */
  resubmitCount?: number;
  parkedAt: string;
  /**
   * Set by the gap timer on the gap's oldest parked entry when it raises `GapTooOld` (see `gapAlertDue`), under the
   * record's ETag. Here, not on the order document, which every step of the order's session replaces: a mark there
   * would fail the session's next commit. Only the drain that ends the gap replaces this record, so no later write
   * drops the mark while the gap lasts.
   */
  gapAlert?: GapAlertMark;
}

/**
 * A parked entry that turned out invalid at its turn (rule 11): what operators need to correct and resubmit it. For
 * rules 2/3 it counts as not seen, so a corrected entry with the same `entryId` is not a conflict: its write replaces
 * this record under its ETag.
 */
export interface RejectedEntryRecord extends EntryRecordFields {
  status: 'rejected';
  entry: Entry;
  reason: DeadLetterReason;
  /** Why it was rejected, in full. */
  description: string;
  rejectedAt: string;
  /** The `resubmitCount` the next resubmission is numbered from (rule 10). Absent = 0. */
  resubmitCount?: number;
}

/**
 * The one record of an `entryId` in its order's partition (`id = entry:<consumer>:<entryId>`, no `ttl`): at once
 * the Idempotent Consumer's inbox record (its create in the entry's batch is the arbiter: an existing one fails the
 * batch, and its hash decides between a duplicate and a reused key), the permanent rule 4 history, the stored event
 * of an applied entry, and a parked or rejected entry.
 */
export type EntryRecord = AppliedEntryRecord | ParkedEntryRecord | RejectedEntryRecord;

/** The part of an applied entry's record the relay sends and a hold keeps. */
export type StoredEvent = Pick<
  AppliedEntryRecord,
  'id' | 'orderId' | 'entryId' | 'sequence' | 'type' | 'correlationId' | 'traceparent' | 'committedAt' | 'event' | 'key'
>;

/** The stored event of an applied entry's record (what a hold keeps of it). */
export function storedEvent(record: StoredEvent): StoredEvent {
  const { id, orderId, entryId, sequence, type, correlationId, traceparent, committedAt, event, key } = record;
  return {
    id,
    orderId,
    entryId,
    sequence,
    type,
    correlationId,
    ...(traceparent !== undefined && { traceparent }),
    committedAt,
    event,
    key,
  };
}

/** What operators read of a rejected entry beyond the order's `rejected` index. */
export type RejectedDetails = Pick<RejectedEntryRecord, 'entry' | 'description' | 'correlationId'>;

/** The details operators read of a rejected entry, from its record (`undefined` unless it is in status `rejected`). */
export function rejectedDetails(stored: EntryRecord | undefined): RejectedDetails | undefined {
  if (stored?.status !== EntryStatus.Rejected) return undefined;
  return { entry: stored.entry, description: stored.description, correlationId: stored.correlationId };
}
