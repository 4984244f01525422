/**
 * An operator's discard of an order's hold (`convoy outbox discard --reason`): the events behind it are dropped
 * without reaching the targets that owe them. The release's claim is taken first (no release runs meanwhile), an
 * audit record naming, per target, the range of sequences it will not get is written in the order's partition, then
 * the marker is deleted under its ETag — when the relay raised it meanwhile, what it added is discarded too, under
 * another audit record. `OutboxDiscarded` is raised. The relay then sends the order's later records as they come.
 */
import { outboxDiscardId } from '../documents/documentIds.js';
import type { OutboxDiscardRecord } from '../documents/outboxDiscardRecord.js';
import { systemClock, type Clock } from '../ports/clock.js';
import { AlertName, type Telemetry } from '../ports/telemetry.js';
import { claim, MAX_ROUNDS } from './holdRelease.js';
import { OutboxHoldError } from './outboxErrors.js';
import type { OutboxHoldStore } from './outboxPorts.js';

/** What {@link discardHold} needs. */
export interface HoldDiscardDeps {
  holds: OutboxHoldStore;
  telemetry: Telemetry;
  /** @default systemClock */
  clock?: Clock;
}

/** What a discard did. */
export interface HoldDiscardReport {
  orderId: string;
  /** `discarded`, or why nothing was: `no-hold`, `busy` (a release holds the claim). */
  outcome: 'discarded' | 'no-hold' | 'busy';
  /** Events dropped for the target furthest behind. */
  records: number;
  /** The audit records written. */
  audits: string[];
  detail?: string;
}

/** Discards the hold of `orderId` for `reason`, as `by`. */
export async function discardHold(
  deps: HoldDiscardDeps,
  orderId: string,
  why: { reason: string; by: string },
): Promise<HoldDiscardReport> {
  if (why.reason.trim() === '') throw new TypeError('discardHold: a reason is required');
  const clock = deps.clock ?? systemClock;
  const report: HoldDiscardReport = { orderId, outcome: 'no-hold', records: 0, audits: [] };
  let current = await claim(deps.holds, orderId, clock, report);
  let firstSequence: number | undefined;
  let audited = -Infinity;
  for (let round = 0; current !== undefined; round++) {
    if (round >= MAX_ROUNDS)
      throw new OutboxHoldError(
        `the hold of order ${orderId} kept changing during ${MAX_ROUNDS} discard rounds; run the discard again`,
      );
    const hold = current.doc;
    const undelivered = hold.targets
      .map((target) => ({
        target,
        after: Math.max(hold.deliveredThrough[target]!, audited),
        through: hold.heldThrough,
      }))
      .filter((r) => r.through > r.after);
    if (undelivered.length > 0) {
      const now = clock.now();
      const audit: OutboxDiscardRecord = {
        id: outboxDiscardId(hold.heldThrough, now),
        docType: 'outbox-discard',
        orderId,
        reason: why.reason,
        by: why.by,
        discardedAt: new Date(now).toISOString(),
        undelivered,
      };
      await deps.holds.recordDiscard(audit);
      report.audits.push(audit.id);
      // Counted for the target furthest behind, from where the last audit ended.
      const after = Math.min(...undelivered.map((r) => r.after));
      report.records += hold.heldThrough - after;
      firstSequence ??= after + 1;
      audited = hold.heldThrough;
    }
    if ((await deps.holds.end(orderId, current.etag)).kind === 'written') {
      report.outcome = 'discarded';
      deps.telemetry.alert(AlertName.OutboxDiscarded, {
        orderId,
        entryId: '',
        sequence: firstSequence,
        records: report.records,
        reason: why.reason,
        by: why.by,
        audits: report.audits,
      });
      return report;
    }
    current = await deps.holds.read(orderId);
  }
  return report;
}
