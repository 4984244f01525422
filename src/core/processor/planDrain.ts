import { DeadLetterReason } from '../deadLetterReasons.js';
import { inboxRecordId, parkedEntryId } from '../documents/documentIds.js';
import { inboxRecord, type InboxRecord } from '../documents/inboxRecord.js';
import type { OrderDocument, RejectedRecord } from '../documents/orderDocument.js';
import type { ParkedEntryDocument } from '../documents/parkedEntryDocument.js';
import type { OrderState } from '../order/orderState.js';
import { applyTransition } from '../order/transition.js';
import type { StoreOperation, Stored } from '../ports/orderStore.js';
import type { Entry } from '../schemas/entry.js';
import { appliedDocument, orderAfterApply, outboxRecord } from './documentBuilders.js';
import { inboxFields, type OperationRole, type PlanContext } from './planEntry.js';

/** A planned drain step: apply the due parked entry, or move it to `rejected` (rule 11). */
export interface DrainPlan {
  action: 'apply' | 'reject';
  operations: StoreOperation[];
  roles: OperationRole[];
  next: OrderDocument;
  /** Why the entry was rejected, for `reject`. */
  reason?: DeadLetterReason;
  description?: string;
}

/** What the drain does with a due parked entry. */
export type DrainDecision =
  | { action: 'apply'; state: OrderState }
  | { action: 'reject'; reason: DeadLetterReason; description: string };

/** Adjustments learned from an earlier attempt of the same step. */
export interface DrainOptions {
  /** Reject the entry for this reason even if its transition is valid (its `entryId` was applied elsewhere). */
  forceReject?: { reason: DeadLetterReason; description: string };
}

/** Whether the parked entry can be applied now (with the state after it) or must be rejected, and why. */
export function drainDecision(doc: OrderDocument, entry: Entry, options: DrainOptions = {}): DrainDecision {
  if (options.forceReject) return { action: 'reject', ...options.forceReject };
  const transition = applyTransition(doc.state, entry);
  if (transition.ok) return { action: 'apply', state: transition.state };
  return { action: 'reject', reason: DeadLetterReason.InvalidTransition, description: transition.error.message };
}

/**
 * Plans one drain step, atomically: apply the parked entry (inbox record marked applied, parked document deleted,
 * applied record and outbox record created, order replaced) or reject it (rule 11: parked document deleted, entry
 * added to `rejected` with its alert still to raise, order replaced). A rejection deletes the inbox record too, so
 * a corrected resubmission is not taken for a conflict — but only `ownInbox`, the record of this very entry read
 * by the caller, and under its ETag: a record of the same `entryId` written for anything else is left alone. The
 * context's origin fields are ignored; the parked document's are used.
 */
export function planDrain(
  current: Stored<OrderDocument>,
  parked: Stored<ParkedEntryDocument>,
  ctx: PlanContext,
  decision: DrainDecision,
  ownInbox?: Stored<InboxRecord>,
): DrainPlan {
  const { doc } = current;
  const { entry, requestHash: hash } = parked.doc;
  const parkedDelete: StoreOperation = { kind: 'delete', id: parkedEntryId(entry.sequence), ifMatch: parked.etag };
  if (decision.action === 'apply') {
    const next = orderAfterApply(doc, entry, decision.state, ctx.now);
    return {
      action: 'apply',
      operations: [
        // Upsert: the parked inbox record may have expired during a long gap.
        { kind: 'upsert', doc: inboxRecord({ ...inboxFields(entry, hash, ctx), status: 'applied' }) },
        parkedDelete,
        { kind: 'create', doc: appliedDocument(entry, hash, ctx.now) },
        { kind: 'replace', doc: next, ifMatch: current.etag },
        { kind: 'create', doc: outboxRecord(entry, next, parked.doc, ctx) },
      ],
      roles: ['inbox', 'parked', 'applied', 'order', 'outbox'],
      next,
    };
  }
  const { reason, description } = decision;
  const record: RejectedRecord = {
    sequence: entry.sequence,
    entryId: entry.entryId,
    requestHash: hash,
    reason,
    description,
    rejectedAt: ctx.now,
    entry,
    correlationId: parked.doc.correlationId,
    ...(parked.doc.resubmitCount !== undefined && parked.doc.resubmitCount > 0 && { resubmitCount: parked.doc.resubmitCount }),
    alerted: false,
  };
  const next: OrderDocument = {
    ...doc,
    parked: doc.parked.filter((p) => p.sequence !== entry.sequence),
    rejected: [...doc.rejected.filter((r) => r.sequence !== entry.sequence), record].sort((a, b) => a.sequence - b.sequence),
    updatedAt: ctx.now,
  };
  const operations: StoreOperation[] = [];
  const roles: OperationRole[] = [];
  if (ownInbox) {
    operations.push({ kind: 'delete', id: inboxRecordId(ctx.consumer, entry.entryId), ifMatch: ownInbox.etag });
    roles.push('inbox');
  }
  operations.push(parkedDelete, { kind: 'replace', doc: next, ifMatch: current.etag });
  roles.push('parked', 'order');
  return { action: 'reject', operations, roles, next, reason, description };
}
