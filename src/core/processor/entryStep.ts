import { inboxRecordId } from '../documents/documentIds.js';
import type { Entry } from '../schemas/entry.js';
import type { EntryOrigin } from './documentBuilders.js';
import { planEntry } from './planEntry.js';
import { MAX_STEP_ROUNDS, commitPlan, contention, currentOrder, planContext, type StepContext } from './stepContext.js';
import { keyConflict, verdictFromInbox, type Verdict } from './verdict.js';

/** What happened to the incoming entry. */
export type EntryStepOutcome = { kind: 'applied' } | { kind: 'parked' } | Verdict;

/**
 * Builds the (re-runnable) step for one incoming entry, in the design's rule order after rule 6. The returned
 * function may be called again after a transient error; it then re-plans from the store. If an earlier run's
 * commit had an unknown outcome, finding our own inbox record with an equal hash means that commit went
 * through, so the entry is reported as applied (or parked), not as a duplicate.
 */
export function entryStep(ctx: StepContext, entry: Entry, hash: string, origin: EntryOrigin): () => Promise<EntryStepOutcome> {
  const { orderId } = entry;
  const inboxId = inboxRecordId(ctx.consumer, entry.entryId);
  let uncertain = false;

  const seen = (verdict: Verdict): EntryStepOutcome => {
    if (uncertain && verdict.kind === 'duplicate') return { kind: verdict.seenAs === 'parked' ? 'parked' : 'applied' };
    return verdict;
  };

  const lookup = async (): Promise<EntryStepOutcome | undefined> => {
    const inbox = await ctx.store.readInbox(orderId, inboxId);
    return inbox ? seen(verdictFromInbox(inbox.doc, entry, hash)) : undefined;
  };

  return async () => {
    let confirmed = false;
    for (let round = 0; round < MAX_STEP_ROUNDS; round++) {
      const fromCache = ctx.cache.get(orderId) !== undefined;
      const current = await currentOrder(ctx, orderId);
      const plan = planEntry(current, entry, hash, planContext(ctx, origin));
      if (plan.kind === 'lookup') {
        const found = await lookup();
        if (found) return found;
        if (plan.fallback.kind === 'deadLetter' && fromCache && !confirmed) {
          // A dead letter cannot be taken back: confirm it against a fresh read of the order, not the cache.
          confirmed = true;
          ctx.cache.forget(orderId);
          continue;
        }
        return seen(plan.fallback);
      }

      const result = await commitPlan(ctx, orderId, plan, () => (uncertain = true));
      if (result.ok) {
        const etag = result.etags[plan.roles.indexOf('order')];
        if (etag !== undefined) ctx.cache.remember(orderId, plan.next, etag);
        return { kind: plan.action === 'apply' ? 'applied' : 'parked' };
      }
      const role = plan.roles[result.failedIndex];
      if (role === 'inbox' && result.status === 409) {
        // The create was the lookup (rule b): seen before. If the record expired meanwhile, plan again.
        const found = await lookup();
        if (found) return found;
        continue;
      }
      if (role === 'outbox' && result.status === 409) {
        // The inbox record expired but the outbox record of the same entryId remains: a reused key.
        return keyConflict(entry, 'an outbox record of this entryId exists');
      }
      // 412/404/409 on the order or a parked document: our view of the order was stale.
      ctx.cache.forget(orderId);
    }
    throw contention(orderId);
  };
}

