import { randomUUID } from 'node:crypto';
import { appliedEntryId, inboxRecordId } from '../documents/documentIds.js';
import type { Entry } from '../schemas/entry.js';
import type { EntryOrigin } from './documentBuilders.js';
import { planEntry } from './planEntry.js';
import { MAX_STEP_ROUNDS, commitPlan, contention, currentOrder, planContext, type StepContext } from './stepContext.js';
import { keyConflict, verdictFromHistory, verdictFromInbox, type Verdict } from './verdict.js';

/** What happened to the incoming entry. */
export type EntryStepOutcome = { kind: 'applied' } | { kind: 'parked' } | Verdict;

/**
 * Builds the (re-runnable) step for one incoming entry, in the design's rule order after rule 6. The returned
 * function may be called again after a transient error; it then re-plans from the store. Every commit attempt
 * writes its own token into the inbox record: if an attempt's outcome was unknown, finding the record with that
 * token proves it went through (applied or parked), while an equal record with another token was written by a
 * concurrent processor and is a duplicate.
 */
export function entryStep(ctx: StepContext, entry: Entry, hash: string, origin: EntryOrigin): () => Promise<EntryStepOutcome> {
  const { orderId } = entry;
  const inboxId = inboxRecordId(ctx.consumer, entry.entryId);
  const inDoubt = new Set<string>();
  let notAppliedElsewhere = false;

  const fromInbox = async (): Promise<EntryStepOutcome | undefined> => {
    const inbox = await ctx.store.readInbox(orderId, inboxId);
    if (!inbox) return undefined;
    const verdict = verdictFromInbox(inbox.doc, entry, hash);
    const ours = inbox.doc.attempt !== undefined && inDoubt.has(inbox.doc.attempt);
    if (ours && verdict.kind === 'duplicate') return { kind: verdict.seenAs === 'parked' ? 'parked' : 'applied' };
    return verdict;
  };
  // Rule 4: the permanent applied record of this entryId.
  const fromHistory = async (): Promise<Verdict> =>
    verdictFromHistory((await ctx.store.readApplied(orderId, appliedEntryId(entry.entryId)))?.doc, entry, hash);

  return async () => {
    let confirmed = false;
    for (let round = 0; round < MAX_STEP_ROUNDS; round++) {
      const fromCache = ctx.cache.get(orderId) !== undefined;
      const current = await currentOrder(ctx, orderId);
      const attempt = randomUUID();
      const plan = planEntry(current, entry, hash, { ...planContext(ctx, origin), attempt });
      if (plan.kind === 'lookup') {
        const found = await fromInbox();
        if (found) return found;
        if (plan.fallback === 'history') return fromHistory();
        if (plan.fallback.kind === 'deadLetter' && fromCache && !confirmed) {
          // A dead letter cannot be taken back: confirm it against a fresh read of the order, not the cache.
          confirmed = true;
          ctx.cache.forget(orderId);
          continue;
        }
        return plan.fallback;
      }
      if (plan.action === 'park' && !notAppliedElsewhere) {
        // An entryId applied before (inbox expired) must not park at another sequence (rule 3 at the door).
        const applied = await ctx.store.readApplied(orderId, appliedEntryId(entry.entryId));
        if (applied) return (await fromInbox()) ?? verdictFromHistory(applied.doc, entry, hash);
        notAppliedElsewhere = true;
      }

      const result = await commitPlan(ctx, orderId, plan, () => inDoubt.add(attempt));
      if (result.ok) {
        const etag = result.etags[plan.roles.indexOf('order')];
        if (etag !== undefined) ctx.cache.remember(orderId, plan.next, etag);
        return { kind: plan.action === 'apply' ? 'applied' : 'parked' };
      }
      const role = plan.roles[result.failedIndex];
      if (role === 'inbox' && result.status === 409) {
        // The create was the lookup (rule b): seen before. If the record expired meanwhile, plan again.
        const found = await fromInbox();
        if (found) return found;
        continue;
      }
      // The inbox record expired but this entryId's applied record remains: a late copy or a reused key.
      if (role === 'applied' && result.status === 409) return fromHistory();
      if (role === 'outbox' && result.status === 409) {
        // Only documents written before applied records existed can get here: the outbox id is the entryId too.
        return keyConflict(entry, 'an outbox record of this entryId exists');
      }
      // 412/404/409 on the order or a parked document: our view of the order was stale.
      ctx.cache.forget(orderId);
    }
    throw contention(orderId);
  };
}
