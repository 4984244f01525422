import type { AppliedEntryDocument } from '../documents/appliedEntryDocument.js';
import { ORDER_DOCUMENT_ID, appliedEntryId, outboxRecordId, parkedEntryId } from '../documents/documentIds.js';
import type { OrderDocument, ParkedRecord } from '../documents/orderDocument.js';
import type { OutboxRecord } from '../documents/outboxRecord.js';
import type { ParkedEntryDocument } from '../documents/parkedEntryDocument.js';
import { initialOrderState, type OrderState } from '../order/orderState.js';
import { businessState } from '../order/orderView.js';
import type { Entry } from '../schemas/entry.js';

/** Where an entry came from; carried into the documents for tracing. */
export interface EntryOrigin {
  correlationId: string | undefined;
  messageId: string | undefined;
  /** W3C `traceparent` of the message (see `messageTraceparent`), when it carried one. */
  traceparent: string | undefined;
  /** The message's `resubmitCount` application property (see `readResubmitCount`); absent = 0. */
  resubmitCount?: number | undefined;
}

/** The trace fields an outbox record takes from its entry's origin (the message, or the parked document). */
export type TraceOrigin = Pick<EntryOrigin, 'correlationId'> & { traceparent?: string | undefined };

/** An order document with nothing applied (status `pending`). */
export function emptyOrderDocument(orderId: string, now: string): OrderDocument {
  return {
    id: ORDER_DOCUMENT_ID,
    docType: 'order',
    orderId,
    lastSequence: 0,
    state: initialOrderState(),
    parked: [],
    rejected: [],
    updatedAt: now,
  };
}

/**
 * The order after applying `entry`: new state and position; the sequence leaves `parked` (the drain applies the
 * parked entry itself; planners never apply another entry over a parked one) and `rejected`.
 */
export function orderAfterApply(doc: OrderDocument, entry: Entry, state: OrderState, now: string): OrderDocument {
  return {
    ...doc,
    lastSequence: entry.sequence,
    state,
    parked: doc.parked.filter((p) => p.sequence !== entry.sequence),
    rejected: doc.rejected.filter((r) => r.sequence !== entry.sequence),
    updatedAt: now,
  };
}

/** The permanent rule 4 record of an applied entry, created in the apply's batch. */
export function appliedDocument(entry: Entry, hash: string, now: string): AppliedEntryDocument {
  return {
    id: appliedEntryId(entry.entryId),
    docType: 'applied',
    orderId: entry.orderId,
    entryId: entry.entryId,
    sequence: entry.sequence,
    requestHash: hash,
    appliedAt: now,
  };
}

/** The order with `entry` added to its parked index, kept ascending. */
export function orderAfterPark(doc: OrderDocument, entry: Entry, hash: string, now: string): OrderDocument {
  const record: ParkedRecord = { sequence: entry.sequence, entryId: entry.entryId, requestHash: hash, parkedAt: now };
  const parked = [...doc.parked, record].sort((a, b) => a.sequence - b.sequence);
  return { ...doc, parked, updatedAt: now };
}

/** The document that holds a parked entry. */
export function parkedDocument(entry: Entry, hash: string, origin: EntryOrigin, now: string): ParkedEntryDocument {
  return {
    id: parkedEntryId(entry.sequence),
    docType: 'parked',
    orderId: entry.orderId,
    sequence: entry.sequence,
    entryId: entry.entryId,
    requestHash: hash,
    entry,
    correlationId: origin.correlationId,
    messageId: origin.messageId,
    // Kept with the entry: a drain, by any processor and at any time, gives its outbox record this trace.
    ...(origin.traceparent !== undefined && { traceparent: origin.traceparent }),
    // Kept for a later rejection's record, which numbers the next resubmission (rule 10); 0 is left out.
    ...(origin.resubmitCount !== undefined && origin.resubmitCount > 0 && { resubmitCount: origin.resubmitCount }),
    parkedAt: now,
  };
}

/**
 * The outbox record of an applied entry, carrying the business state right after it and the entry's trace; written
 * once, never updated, and expiring after `OUTBOX_TTL`.
 */
export function outboxRecord(entry: Entry, next: OrderDocument, origin: TraceOrigin, step: { now: string; outboxTtlSeconds: number }): OutboxRecord {
  return {
    id: outboxRecordId(entry.entryId),
    docType: 'outbox',
    orderId: entry.orderId,
    entryId: entry.entryId,
    sequence: entry.sequence,
    type: entry.type,
    correlationId: origin.correlationId,
    ...(origin.traceparent !== undefined && { traceparent: origin.traceparent }),
    order: businessState(next),
    committedAt: step.now,
    ttl: step.outboxTtlSeconds,
  };
}

