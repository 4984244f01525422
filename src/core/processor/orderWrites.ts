/**
 * The documents a decision writes (docs/architecture.md, "Documents"): for each decision of `decide.ts` that changes
 * the order, the one {@link OrderWrite} that commits it atomically — the entry's record, the order, and the
 * transaction when the entry has one: at most three documents. Shapes only; no rule is decided here.
 */
import { ORDER_DOCUMENT_ID, entryRecordId } from '../documents/documentIds.js';
import {
  EntryStatus,
  type AppliedEntryRecord,
  type EntryRecord,
  type ParkedEntryRecord,
  type RejectedEntryRecord,
} from '../documents/entryRecord.js';
import { bySequence, type OrderDocument, type ParkedRecord, type RejectedRecord } from '../documents/orderDocument.js';
import type { TransactionDocument } from '../documents/transactionDocument.js';
import { initialOrderState } from '../order/orderState.js';
import { orderSummary } from '../order/orderView.js';
import { orderCloudEvent } from '../outbox/orderCloudEvent.js';
import type { OrderWrite, Stored } from '../ports/orderStore.js';
import type { Entry } from '../entryTypes/registry.js';
import type { Decision, EntryOrigin } from './decide.js';

/** What a step writes besides the decision: when, and by which consumer. */
export interface StepStamp {
  /** ISO time of the step. */
  now: string;
  /** Inbox consumer name (`INBOX_CONSUMER_NAME`), in the entry record's id. */
  consumer: string;
}

/** The entry being written, where it comes from, and what the step read of its documents. */
export interface WriteSubject {
  entry: Entry;
  hash: string;
  origin: EntryOrigin;
  /** The order as read; `undefined` when nothing of it exists yet (the write creates it). */
  order: Stored<OrderDocument> | undefined;
  /**
   * The entry's record as read, replaced under its ETag: a parked one (the drain) or a rejected one (a correction;
   * a decision that writes never stands on an applied one); `null` or `undefined`: created.
   */
  record: Stored<EntryRecord> | null | undefined;
  /** The transaction the entry's type reads, as read (the decision replaces it under this ETag). */
  transaction?: Stored<TransactionDocument> | null | undefined;
}

/** The write that commits a decision that changes the order (`apply`, `park`, `reject`, `alert`); else `undefined`. */
export function writeFor(decision: Decision, subject: WriteSubject, stamp: StepStamp): OrderWrite | undefined {
  const { entry, hash, order, record } = subject;
  const doc = order?.doc ?? emptyOrderDocument(entry.orderId, stamp.now);
  const orderWrite = (next: OrderDocument) => ({ doc: next, etag: order?.etag });
  const entryWrite = (next: EntryRecord): Pick<OrderWrite, 'entry'> => ({
    entry: record ? { replace: { doc: next, etag: record.etag } } : { create: next },
  });
  switch (decision.kind) {
    case 'apply': {
      // The sequence leaves `parked` (the drain applies the parked entry itself) and `rejected`.
      const next: OrderDocument = {
        ...doc,
        lastSequence: entry.sequence,
        state: decision.state,
        parked: doc.parked.filter((p) => p.sequence !== entry.sequence),
        rejected: doc.rejected.filter((r) => r.sequence !== entry.sequence),
        updatedAt: stamp.now,
      };
      const { event, key } = orderCloudEvent({
        orderId: entry.orderId,
        entryId: entry.entryId,
        sequence: entry.sequence,
        type: entry.type,
        change: decision.change,
        order: orderSummary(next),
        committedAt: stamp.now,
        traceparent: subject.origin.traceparent,
      });
      const applied: AppliedEntryRecord = {
        ...recordFields(subject, stamp),
        status: EntryStatus.Applied,
        type: entry.type,
        committedAt: stamp.now,
        event,
        key,
      };
      return { ...entryWrite(applied), order: orderWrite(next), ...transactionWrite(decision, subject) };
    }
    case 'park': {
      const { origin } = subject;
      const parked: ParkedEntryRecord = {
        ...recordFields(subject, stamp),
        status: EntryStatus.Parked,
        entry,
        ...(origin.messageId !== undefined && { messageId: origin.messageId }),
        // Kept for a later rejection, which numbers the next resubmission from it (rule 10); 0 is left out.
        ...(origin.resubmitCount !== undefined && origin.resubmitCount > 0 && { resubmitCount: origin.resubmitCount }),
        parkedAt: stamp.now,
      };
      const index: ParkedRecord = {
        sequence: entry.sequence,
        entryId: entry.entryId,
        requestHash: hash,
        parkedAt: stamp.now,
      };
      const next = { ...doc, parked: [...doc.parked, index].sort(bySequence), updatedAt: stamp.now };
      return { ...entryWrite(parked), order: orderWrite(next) };
    }
    case 'reject': {
      // Rule 11: out of `parked`, into `rejected` with its alert still to raise; its record keeps what operators need.
      const resubmitCount = record?.doc.status === EntryStatus.Parked ? record.doc.resubmitCount : undefined;
      const counted = resubmitCount !== undefined && resubmitCount > 0 ? { resubmitCount } : {};
      const rejected: RejectedEntryRecord = {
        ...recordFields(subject, stamp),
        status: EntryStatus.Rejected,
        entry,
        reason: decision.deadLetterReason,
        description: decision.reason,
        rejectedAt: stamp.now,
        ...counted,
      };
      const index: RejectedRecord = {
        sequence: entry.sequence,
        entryId: entry.entryId,
        requestHash: hash,
        reason: decision.deadLetterReason,
        rejectedAt: stamp.now,
        ...counted,
        alerted: false,
      };
      const next: OrderDocument = {
        ...doc,
        parked: doc.parked.filter((p) => p.sequence !== entry.sequence),
        rejected: [...doc.rejected.filter((r) => r.sequence !== entry.sequence), index].sort(bySequence),
        updatedAt: stamp.now,
      };
      return { ...entryWrite(rejected), order: orderWrite(next) };
    }
    case 'alert': {
      const owed = decision.rejected;
      const rejected = doc.rejected.map((r) =>
        r.sequence === owed.sequence && r.entryId === owed.entryId ? { ...r, alerted: true } : r,
      );
      return { order: orderWrite({ ...doc, rejected, updatedAt: stamp.now }) };
    }
    default:
      return undefined;
  }
}

/** What every record of the entry holds. */
function recordFields(subject: WriteSubject, stamp: StepStamp) {
  const { entry, hash, origin } = subject;
  return {
    id: entryRecordId(stamp.consumer, entry.entryId),
    docType: 'entry' as const,
    orderId: entry.orderId,
    entryId: entry.entryId,
    sequence: entry.sequence,
    requestHash: hash,
    correlationId: origin.correlationId,
    // Kept with the entry: its event, written by any processor at any time, continues this trace.
    ...(origin.traceparent !== undefined && { traceparent: origin.traceparent }),
  };
}

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
 * The transaction document the applied entry's type writes: created (a 409 on it is rule 7), or replaced under the
 * ETag it was read with; nothing when the type writes none.
 */
function transactionWrite(
  decision: Extract<Decision, { kind: 'apply' }>,
  { entry, transaction: read }: WriteSubject,
): Pick<OrderWrite, 'transaction'> {
  const written = decision.transaction;
  if (written === undefined) return {};
  if ('create' in written) return { transaction: written };
  if (!read) throw new TypeError(`${entry.type} ${entry.entryId} is written without its transaction read`);
  return { transaction: { replace: { doc: written.replace, etag: read.etag } } };
}
