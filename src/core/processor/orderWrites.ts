/**
 * The documents a decision writes (docs/architecture.md, "One message's path"): for each decision of `decide.ts` that
 * changes the order, the one {@link OrderWrite} that commits it atomically. Shapes only; no rule is decided here.
 */
import type { AppliedEntryDocument } from '../documents/appliedEntryDocument.js';
import {
  ORDER_DOCUMENT_ID,
  appliedEntryId,
  outboxRecordId,
  parkedEntryId,
  rejectedEntryId,
  transactionDocumentId,
} from '../documents/documentIds.js';
import { inboxRecord, type InboxRecord, type InboxStatus } from '../documents/inboxRecord.js';
import type { OrderDocument, ParkedRecord, RejectedRecord } from '../documents/orderDocument.js';
import type { OutboxRecord } from '../documents/outboxRecord.js';
import type { ParkedEntryDocument } from '../documents/parkedEntryDocument.js';
import type { RejectedEntryDocument } from '../documents/rejectedEntryDocument.js';
import type { TransactionDocument } from '../documents/transactionDocument.js';
import { initialOrderState, type OrderState } from '../order/orderState.js';
import { orderSummary } from '../order/orderView.js';
import type { EntryChange } from '../order/transition.js';
import { orderCloudEvent } from '../outbox/orderCloudEvent.js';
import type { OrderWrite, Stored } from '../ports/orderStore.js';
import type { Entry } from '../schemas/entry.js';
import type { Decision } from './decide.js';

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
type TraceOrigin = Pick<EntryOrigin, 'correlationId'> & { traceparent?: string | undefined };

/** An order document with nothing applied (status `pending`). */
function emptyOrderDocument(orderId: string, now: string): OrderDocument {
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
function orderAfterApply(doc: OrderDocument, entry: Entry, state: OrderState, now: string): OrderDocument {
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
function appliedDocument(entry: Entry, hash: string, now: string): AppliedEntryDocument {
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
function orderAfterPark(doc: OrderDocument, entry: Entry, hash: string, now: string): OrderDocument {
  const record: ParkedRecord = { sequence: entry.sequence, entryId: entry.entryId, requestHash: hash, parkedAt: now };
  const parked = [...doc.parked, record].sort((a, b) => a.sequence - b.sequence);
  return { ...doc, parked, updatedAt: now };
}

/** The document that holds a parked entry. */
function parkedDocument(entry: Entry, hash: string, origin: EntryOrigin, now: string): ParkedEntryDocument {
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
 * The outbox record of an applied entry, written once and never updated, expiring after `OUTBOX_TTL`: the event as it
 * will leave — a CloudEvent carrying what the entry changed, the order's summary right after it and the entry's
 * trace, with its key — fixed now, so every relay of it sends the same bytes.
 * @internal
 */
export function outboxRecord(
  entry: Entry,
  applied: { next: OrderDocument; change: EntryChange },
  origin: TraceOrigin,
  step: { now: string; outboxTtlSeconds: number },
): OutboxRecord {
  const { event, key } = orderCloudEvent({
    orderId: entry.orderId,
    entryId: entry.entryId,
    sequence: entry.sequence,
    type: entry.type,
    change: applied.change,
    order: orderSummary(applied.next),
    committedAt: step.now,
    traceparent: origin.traceparent,
  });
  return {
    id: outboxRecordId(entry.entryId),
    docType: 'outbox',
    orderId: entry.orderId,
    entryId: entry.entryId,
    sequence: entry.sequence,
    type: entry.type,
    correlationId: origin.correlationId,
    ...(origin.traceparent !== undefined && { traceparent: origin.traceparent }),
    committedAt: step.now,
    ttl: step.outboxTtlSeconds,
    event,
    key,
  };
}

/** What a step writes besides the decision: when, by whom, for how long, and the attempt's token. */
export interface StepStamp {
  /** ISO time of the step. */
  now: string;
  /** Inbox consumer name (`INBOX_CONSUMER_NAME`). */
  consumer: string;
  inboxTtlSeconds: number;
  outboxTtlSeconds: number;
  /** Token of this write attempt, kept in the inbox record (see `InboxRecord.attempt`). */
  attempt?: string;
}

/** What the entry being written is, and where it comes from. */
export interface WriteSubject {
  entry: Entry;
  hash: string;
  /** The order as read; `undefined` when nothing of it exists yet (the write creates it). */
  order: Stored<OrderDocument> | undefined;
  /** For a `TransactionAmended`: its transaction as read (replaced under this ETag). */
  transaction?: Stored<TransactionDocument> | undefined;
  origin: EntryOrigin;
  /** For a parked entry (the drain): its document, deleted by the write, and its own inbox record if it still exists. */
  parked?: { doc: Stored<ParkedEntryDocument>; ownInbox: Stored<InboxRecord> | null | undefined };
}

/** The write that commits a decision that changes the order (`apply`, `park`, `reject`); `undefined` for the others. */
export function writeFor(decision: Decision, subject: WriteSubject, stamp: StepStamp): OrderWrite | undefined {
  const { entry, hash, order, parked } = subject;
  const doc = order?.doc ?? emptyOrderDocument(entry.orderId, stamp.now);
  const orderWrite = (next: OrderDocument) => ({ doc: next, etag: order?.etag });
  switch (decision.kind) {
    case 'apply': {
      const next = orderAfterApply(doc, entry, decision.state, stamp.now);
      // Its rejected record leaves the list, and its document with it.
      const rejected = doc.rejected.find((r) => r.sequence === entry.sequence);
      return {
        // A drained entry's inbox record may have expired during a long gap: upserted, not created. It carries no
        // attempt token: the drain recognises its own in-doubt writes on the order document.
        inbox: parked
          ? { upsert: inboxOf(entry, hash, 'applied', { ...stamp, attempt: undefined }) }
          : { create: inboxOf(entry, hash, 'applied', stamp) },
        ...(parked && { parked: { delete: parked.doc } }),
        applied: appliedDocument(entry, hash, stamp.now),
        order: orderWrite(next),
        ...transactionWrite(entry, subject.transaction),
        ...(rejected && { rejected: { delete: { id: rejectedEntryId(entry.sequence) } } }),
        outbox: outboxRecord(entry, { next, change: decision.change }, subject.origin, stamp),
      };
    }
    case 'park':
      return {
        inbox: { create: inboxOf(entry, hash, 'parked', stamp) },
        parked: { create: parkedDocument(entry, hash, subject.origin, stamp.now) },
        order: orderWrite(orderAfterPark(doc, entry, hash, stamp.now)),
      };
    case 'reject': {
      if (!parked) return undefined;
      // Rule 11: out of `parked`, into `rejected` with its alert still to raise, its details into their own document
      // (upserted: a sequence rejected before may be rejected again); its own inbox record goes, so a corrected
      // resubmission is not taken for a conflict (a record of this entryId written for anything else stays).
      const { resubmitCount, correlationId } = parked.doc.doc;
      const record: RejectedRecord = {
        sequence: entry.sequence,
        entryId: entry.entryId,
        requestHash: hash,
        reason: decision.deadLetterReason,
        rejectedAt: stamp.now,
        ...(resubmitCount !== undefined && resubmitCount > 0 && { resubmitCount }),
        alerted: false,
      };
      const next: OrderDocument = {
        ...doc,
        parked: doc.parked.filter((p) => p.sequence !== entry.sequence),
        rejected: [...doc.rejected.filter((r) => r.sequence !== entry.sequence), record].sort(
          (a, b) => a.sequence - b.sequence,
        ),
        updatedAt: stamp.now,
      };
      const details: RejectedEntryDocument = {
        id: rejectedEntryId(entry.sequence),
        docType: 'rejected',
        orderId: entry.orderId,
        sequence: entry.sequence,
        entryId: entry.entryId,
        requestHash: hash,
        reason: decision.deadLetterReason,
        description: decision.reason,
        rejectedAt: stamp.now,
        entry,
        correlationId,
      };
      return {
        ...(parked.ownInbox && { inbox: { delete: parked.ownInbox } }),
        parked: { delete: parked.doc },
        order: orderWrite(next),
        rejected: { upsert: details },
      };
    }
    default:
      return undefined;
  }
}

/**
 * The entry's transaction document: created by a `TransactionAdded` (a 409 on it is rule 7), replaced with its new
 * amount, under the ETag it was read with, by a `TransactionAmended`; nothing for the other entries.
 */
function transactionWrite(
  entry: Entry,
  read: Stored<TransactionDocument> | undefined,
): Pick<OrderWrite, 'transaction'> {
  if (entry.type === 'TransactionAdded') {
    const { transactionId, amount } = entry.data;
    const doc: TransactionDocument = {
      id: transactionDocumentId(transactionId),
      docType: 'transaction',
      orderId: entry.orderId,
      transactionId,
      amount,
      addedSequence: entry.sequence,
    };
    return { transaction: { create: doc } };
  }
  if (entry.type === 'TransactionAmended') {
    if (read === undefined)
      throw new TypeError(`the amendment ${entry.entryId} is written without its transaction read`);
    return { transaction: { replace: { doc: { ...read.doc, amount: entry.data.amount }, etag: read.etag } } };
  }
  return {};
}

function inboxOf(entry: Entry, hash: string, status: InboxStatus, stamp: StepStamp): InboxRecord {
  return inboxRecord({
    consumer: stamp.consumer,
    orderId: entry.orderId,
    entryId: entry.entryId,
    requestHash: hash,
    sequence: entry.sequence,
    status,
    now: stamp.now,
    ttlSeconds: stamp.inboxTtlSeconds,
    attempt: stamp.attempt,
  });
}
