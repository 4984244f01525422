import type { RejectedRecord } from '../documents/orderDocument.js';
import { AlertName, CounterName, type Telemetry } from '../ports/telemetry.js';
import { drainStep } from './drainStep.js';
import { rejectionAlertStep } from './rejectionAlerts.js';
import type { StepContext } from './stepContext.js';

/** What the follow-up of a step did to its order. */
export interface FollowUpReport {
  /** Parked entries applied. */
  drained: number;
  /** Parked entries moved to `rejected` (rule 11). */
  rejected: number;
  /** `ParkedEntryRejected` alerts raised. */
  alerted: number;
}

/** How the follow-up runs a re-runnable step: with the caller's retries and deadline. */
export type RunStep = <T>(work: () => Promise<T>) => Promise<T>;

/**
 * Applies, one atomic step each, every parked entry that is due (and rejects those that are now impossible, which
 * on a deleted order is every one of them), until nothing is due. Throws what a step throws once retries are spent.
 */
export async function drainDue(ctx: StepContext, orderId: string, run: RunStep, telemetry: Telemetry, report: FollowUpReport): Promise<void> {
  const step = drainStep(ctx, orderId);
  for (;;) {
    const outcome = await run(step);
    if (outcome.kind === 'none') return;
    if (outcome.kind === 'applied') {
      report.drained++;
      telemetry.count(CounterName.EntriesApplied, { via: 'drain' });
    } else {
      report.rejected++;
      telemetry.count(CounterName.ParkedRejected);
    }
  }
}

/** Raises the owed `ParkedEntryRejected` alerts of the order and marks them raised (see `rejectionAlertStep`). */
export async function raiseOwedAlerts(ctx: StepContext, orderId: string, run: RunStep, telemetry: Telemetry, report: FollowUpReport): Promise<void> {
  const raise = (record: RejectedRecord) =>
    telemetry.alert(AlertName.ParkedEntryRejected, {
      orderId,
      entryId: record.entryId,
      sequence: record.sequence,
      description: record.description,
      reason: record.reason,
    });
  report.alerted += await run(rejectionAlertStep(ctx, orderId, raise));
}
