import type { DeadLetterReason } from '../deadLetterReasons.js';
import { DeadLetterReason as Reasons } from '../deadLetterReasons.js';
import { parkedEntryId } from '../documents/documentIds.js';
import { CoreErrorCode, StoreError } from '../errors.js';
import type { Entry } from '../schemas/entry.js';
import type { OrderDocument } from '../documents/orderDocument.js';
import { nextParkedSequence, planDrain, type DrainOptions, type DrainPlan } from './planDrain.js';
import { MAX_STEP_ROUNDS, commitPlan, contention, currentOrder, planContext, type StepContext } from './stepContext.js';

/** What one drain step did. */
export type DrainStepOutcome =
  | { kind: 'none' }
  | { kind: 'applied'; entry: Entry }
  | { kind: 'rejected'; entry: Entry; reason: DeadLetterReason; description: string };

/**
 * Builds the (re-runnable) step that handles the parked entry due next, if any: applies it or, when it is now
 * impossible, rejects it (rule 11). One atomic commit per step; re-running after an unknown outcome finds the
 * order already moved on.
 */
export function drainStep(ctx: StepContext, orderId: string): () => Promise<DrainStepOutcome> {
  // The plan of a commit whose outcome is unknown: a re-run that finds it done reports it as done.
  let doubt: { plan: DrainPlan; entry: Entry } | undefined;
  return async () => {
    const options: DrainOptions = {};
    let missingParked = 0;
    for (let round = 0; round < MAX_STEP_ROUNDS; round++) {
      const current = await currentOrder(ctx, orderId);
      const settled = doubt && current ? committedInDoubt(current.doc, doubt) : undefined;
      doubt = undefined;
      if (settled) return settled;
      const sequence = current && nextParkedSequence(current.doc);
      if (!current || sequence === undefined) return { kind: 'none' };

      const parked = await ctx.store.readParked(orderId, parkedEntryId(sequence));
      if (!parked) {
        // A stale cache may still list an entry another instance drained; a fresh read that lists it is a defect.
        if (++missingParked > 1) {
          throw new StoreError(CoreErrorCode.StoreInconsistent, `Order ${orderId} lists parked sequence ${sequence} but its document is missing`);
        }
        ctx.cache.forget(orderId);
        continue;
      }
      const plan = planDrain(current, parked, planContext(ctx, parked.doc), options);
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
      if (role === 'inbox' && result.status === 404) {
        options.inboxMissing = true; // the parked inbox record expired: nothing to delete
        continue;
      }
      if (role === 'outbox' && result.status === 409) {
        options.forceReject = {
          reason: Reasons.IdempotencyKeyConflict,
          description: `entryId ${parked.doc.entryId} was seen with other content: an outbox record of this entryId exists`,
        };
        continue;
      }
      ctx.cache.forget(orderId);
    }
    throw contention(orderId);
  };
}

/** What an in-doubt drain commit did, if the order shows it committed. */
function committedInDoubt(doc: OrderDocument, doubt: { plan: DrainPlan; entry: Entry }): DrainStepOutcome | undefined {
  const { entry, plan } = doubt;
  if (plan.action === 'apply') {
    const applied = doc.applied.find((a) => a.sequence === entry.sequence);
    return applied?.entryId === entry.entryId ? { kind: 'applied', entry } : undefined;
  }
  const rejected = doc.rejected.find((r) => r.sequence === entry.sequence && r.entryId === entry.entryId);
  return rejected ? { kind: 'rejected', entry, reason: rejected.reason, description: rejected.description } : undefined;
}
