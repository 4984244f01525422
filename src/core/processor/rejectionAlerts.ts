import type { RejectedRecord } from '../documents/orderDocument.js';
import { MAX_STEP_ROUNDS, commitPlan, contention, currentOrder, type StepContext } from './stepContext.js';

/**
 * Builds the (re-runnable) step that raises the `ParkedEntryRejected` alert of every rejected entry still owing
 * one (`alerted: false`, written by the rejecting commit), then marks them under the order's ETag. The alert is
 * therefore at least once whatever fails in between: a crash, an unknown commit outcome, reads failing until the
 * budget runs out — the next step on the order, or the gap timer, raises it. A lost mark only repeats an alert.
 * Resolves with how many alerts this step raised; an alert is raised once per step even if the mark is retried.
 */
export function rejectionAlertStep(ctx: StepContext, orderId: string, raise: (record: RejectedRecord) => void): () => Promise<number> {
  const raised = new Set<string>();
  return async () => {
    for (let round = 0; round < MAX_STEP_ROUNDS; round++) {
      const current = await currentOrder(ctx, orderId);
      const owed = current?.doc.rejected.filter((r) => r.alerted === false) ?? [];
      if (!current || owed.length === 0) return raised.size;
      for (const record of owed) {
        const key = `${record.sequence}:${record.entryId}`;
        if (raised.has(key)) continue;
        raise(record);
        raised.add(key);
      }
      const now = new Date(ctx.clock.now()).toISOString();
      const next = { ...current.doc, rejected: current.doc.rejected.map((r) => (r.alerted === false ? { ...r, alerted: true } : r)), updatedAt: now };
      const result = await commitPlan(ctx, orderId, { operations: [{ kind: 'replace', doc: next, ifMatch: current.etag }], next }, () => undefined);
      if (result.ok) {
        const etag = result.etags[0];
        if (etag !== undefined) ctx.cache.remember(orderId, next, etag);
        return raised.size;
      }
      ctx.cache.forget(orderId); // the order moved on: re-read, raise what is new, mark again
    }
    throw contention(orderId);
  };
}
