import { DeadLetterReason } from '../deadLetterReasons.js';
import { inboxRecordId, parkedEntryId } from '../documents/documentIds.js';
import { inboxRecord } from '../documents/inboxRecord.js';
import type { OrderDocument } from '../documents/orderDocument.js';
import type { ParkedEntryDocument } from '../documents/parkedEntryDocument.js';
import { applyTransition } from '../order/transition.js';
import type { StoreOperation, Stored } from '../ports/orderStore.js';
import { orderAfterApply, outboxRecord } from './documentBuilders.js';
import { inboxFields, type OperationRole, type PlanContext } from './planEntry.js';

/** A planned drain step: apply the next parked entry, or move it to `rejected` (rule 11). */
export interface DrainPlan {
  action: 'apply' | 'reject';
  operations: StoreOperation[];
  roles: OperationRole[];
  next: OrderDocument;
  /** Why the entry was rejected, for `reject`. */
  reason?: DeadLetterReason;
  description?: string;
}

/** Adjustments learned from an earlier attempt of the same step. */
export interface DrainOptions {
  /** The parked entry's inbox record has expired: nothing to delete. */
  inboxMissing?: boolean;
  /** Reject the entry for this reason even if its transition is valid (its outbox id is taken). */
  forceReject?: { reason: DeadLetterReason; description: string };
}

/** The parked entry due next (`lastSequence + 1`), if any. */
export function nextParkedSequence(doc: OrderDocument): number | undefined {
  return doc.parked.find((p) => p.sequence === doc.lastSequence + 1)?.sequence;
}

/**
 * Plans one drain step for the parked entry at `lastSequence + 1`, atomically: apply it (inbox record marked
 * applied, parked document deleted, order replaced, outbox record created) or, if it is now impossible (rule 11),
 * reject it (inbox record deleted so a corrected resubmission is not taken for a conflict, parked document
 * deleted, entry added to `rejected`). The context's origin fields are ignored; the parked document's are used.
 */
export function planDrain(
  current: Stored<OrderDocument>,
  parked: Stored<ParkedEntryDocument>,
  ctx: PlanContext,
  options: DrainOptions = {},
): DrainPlan {
  const { doc } = current;
  const { entry, requestHash: hash } = parked.doc;
  const parkedDelete: StoreOperation = { kind: 'delete', id: parkedEntryId(entry.sequence), ifMatch: parked.etag };
  const transition = applyTransition(doc.state, entry);
  if (transition.ok && !options.forceReject) {
    const next = orderAfterApply(doc, entry, hash, transition.state, ctx.now);
    return {
      action: 'apply',
      operations: [
        // Upsert: the parked inbox record may have expired during a long gap.
        { kind: 'upsert', doc: inboxRecord({ ...inboxFields(entry, hash, ctx), status: 'applied' }) },
        parkedDelete,
        { kind: 'replace', doc: next, ifMatch: current.etag },
        { kind: 'create', doc: outboxRecord(entry, next, parked.doc.correlationId, ctx.now) },
      ],
      roles: ['inbox', 'parked', 'order', 'outbox'],
      next,
    };
  }
  const reason = options.forceReject?.reason ?? DeadLetterReason.InvalidTransition;
  const description = options.forceReject?.description ?? (transition.ok ? reason : transition.error.message);
  const next: OrderDocument = {
    ...doc,
    parked: doc.parked.filter((p) => p.sequence !== entry.sequence),
    rejected: [
      ...doc.rejected.filter((r) => r.sequence !== entry.sequence),
      {
        sequence: entry.sequence,
        entryId: entry.entryId,
        requestHash: hash,
        reason,
        description,
        rejectedAt: ctx.now,
        entry,
        correlationId: parked.doc.correlationId,
      },
    ].sort((a, b) => a.sequence - b.sequence),
    updatedAt: ctx.now,
  };
  const operations: StoreOperation[] = [];
  const roles: OperationRole[] = [];
  if (!options.inboxMissing) {
    operations.push({ kind: 'delete', id: inboxRecordId(ctx.consumer, entry.entryId) });
    roles.push('inbox');
  }
  operations.push(parkedDelete, { kind: 'replace', doc: next, ifMatch: current.etag });
  roles.push('parked', 'order');
  return { action: 'reject', operations, roles, next, reason, description };
}
