import type { DeadLetterReason } from '../deadLetterReasons.js';
import { DeadLetterReason as Reasons } from '../deadLetterReasons.js';
import { inboxRecordId, parkedEntryId } from '../documents/documentIds.js';
import type { InboxRecord } from '../documents/inboxRecord.js';
import type { OrderDocument } from '../documents/orderDocument.js';
import type { ParkedEntryDocument } from '../documents/parkedEntryDocument.js';
import { CoreErrorCode, StoreError } from '../errors.js';
import type { Stored } from '../ports/orderStore.js';
import type { Entry } from '../schemas/entry.js';
import { nextDueSequence } from '../order/followUpCheck.js';
import { drainDecision, planDrain, type DrainOptions, type DrainPlan } from './planDrain.js';
import { MAX_STEP_ROUNDS, commitPlan, contention, currentOrder, planContext, type StepContext } from './stepContext.js';

/** What one drain step did. */
export type DrainStepOutcome =
  | { kind: 'none' }
  | { kind: 'applied'; entry: Entry }
  | { kind: 'rejected'; entry: Entry; reason: DeadLetterReason; description: string };

/**
 * Builds the (re-runnable) step that handles the parked entry due now, if any (see `nextDueSequence`): applies it
 * or, when it is now impossible, rejects it (rule 11). One atomic commit per step; re-running after an unknown
 * outcome finds the order already moved on. Safe against another processor draining the same order at the same
 * time (a session lock lost): every commit is conditional on the order's ETag.
 */
export function drainStep(ctx: StepContext, orderId: string): () => Promise<DrainStepOutcome> {
  // The plan of a commit whose outcome is unknown: a re-run that finds it done reports it as done.
  let doubt: { plan: DrainPlan; entry: Entry } | undefined;
  return async () => {
    const options: DrainOptions = {};
    let missing: { sequence: number; etag: string } | undefined;
    for (let round = 0; round < MAX_STEP_ROUNDS; round++) {
      const current = await currentOrder(ctx, orderId);
      const settled = doubt && current ? committedInDoubt(current.doc, doubt) : undefined;
      doubt = undefined;
      if (settled) return settled;
      const sequence = current && nextDueSequence(current.doc);
      if (!current || sequence === undefined) return { kind: 'none' };

      const parked = await ctx.store.readParked(orderId, parkedEntryId(sequence));
      if (!parked) {
        // Another processor may have drained it after our read of the order: read the order again. Only the same
        // sequence missing again under an unchanged order ETag is a contradiction (every drain replaces the order).
        if (missing?.sequence === sequence && missing.etag === current.etag) {
          throw new StoreError(CoreErrorCode.StoreInconsistent, `Order ${orderId} lists parked sequence ${sequence} but its document is missing`);
        }
        missing = { sequence, etag: current.etag };
        ctx.cache.forget(orderId);
        continue;
      }
      const decision = drainDecision(current.doc, parked.doc.entry, options);
      const inbox = decision.action === 'reject' ? await ownInbox(ctx, parked.doc) : undefined;
      const origin = { correlationId: parked.doc.correlationId, messageId: parked.doc.messageId, traceparent: parked.doc.traceparent };
      const plan = planDrain(current, parked, planContext(ctx, origin), decision, inbox);
      const result = await commitPlan(ctx, orderId, plan, () => (doubt = { plan, entry: parked.doc.entry }));
      if (result.ok) {
        const etag = result.etags[plan.roles.indexOf('order')];
        if (etag !== undefined) ctx.cache.remember(orderId, plan.next, etag);
        const { entry } = parked.doc;
        return plan.action === 'apply'
          ? { kind: 'applied', entry }
          : { kind: 'rejected', entry, reason: plan.reason ?? Reasons.InvalidTransition, description: plan.description ?? '' };
      }
      const role = plan.roles[result.failedIndex];
      if ((role === 'applied' || role === 'outbox') && result.status === 409) {
        // Its entryId was applied at another sequence (its inbox record had expired when it was parked).
        options.forceReject = {
          reason: Reasons.IdempotencyKeyConflict,
          description: `entryId ${parked.doc.entryId} was seen with other content: it was already applied at another sequence`,
        };
        continue;
      }
      // 412/404 on the order, the parked document or the inbox record: re-read and re-plan.
      ctx.cache.forget(orderId);
    }
    throw contention(orderId);
  };
}

/** The inbox record of this parked entry, if it still exists and is this entry's (same sequence and hash). */
async function ownInbox(ctx: StepContext, parked: ParkedEntryDocument): Promise<Stored<InboxRecord> | undefined> {
  const inbox = await ctx.store.readInbox(parked.orderId, inboxRecordId(ctx.consumer, parked.entryId));
  const own = inbox?.doc.sequence === parked.sequence && inbox.doc.requestHash === parked.requestHash;
  return own ? inbox : undefined;
}

/** What an in-doubt drain commit did, if the order shows it committed. */
function committedInDoubt(doc: OrderDocument, doubt: { plan: DrainPlan; entry: Entry }): DrainStepOutcome | undefined {
  const { entry, plan } = doubt;
  const same = (r: { sequence: number; entryId: string }) => r.sequence === entry.sequence && r.entryId === entry.entryId;
  if (plan.action === 'apply') {
    const applied = doc.lastSequence >= entry.sequence && !doc.parked.some(same) && !doc.rejected.some(same);
    return applied ? { kind: 'applied', entry } : undefined;
  }
  const rejected = doc.rejected.find(same);
  return rejected ? { kind: 'rejected', entry, reason: rejected.reason, description: rejected.description } : undefined;
}
