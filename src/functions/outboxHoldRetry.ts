/**
 * Outbox hold retry: a timer that releases every due outbox hold (docs/architecture.md, "The outbox relay").
 * Each release claims its hold first, so this timer on several instances, or an operator's `convoy outbox retry`
 * at the same moment, never release one hold twice; a failed one records its next attempt (backoff with jitter).
 */
import type { InvocationContext, Timer } from '@azure/functions';
import { retryDueHolds, type HoldRetryReport } from '../core/index.js';
import { defineFunction, type AppContext } from './appContext.js';
import { skippedWhenThrottled } from './throttledTick.js';

/** Every minute, at second 15 (NCRONTAB with seconds), apart from the gap monitor's and the gauges' seconds. */
const OUTBOX_HOLD_RETRY_SCHEDULE = '15 * * * * *';

/**
 * One tick; rejects if Cosmos DB cannot list the holds (the next tick tries again; the function skips a throttled
 * one with a warn line). @internal
 */
export async function outboxHoldRetry(
  app: AppContext,
  _timer: Timer,
  context: InvocationContext,
): Promise<HoldRetryReport> {
  const report = await retryDueHolds(app.outbox.holdRetry);
  if (report.tried > 0)
    app.telemetry.log('info', 'outbox hold retry', { invocationId: context.invocationId, ...report });
  return report;
}

/** The function: a timer every minute. */
export const outboxHoldRetryFunction = defineFunction(
  'timer',
  'outboxHoldRetry',
  skippedWhenThrottled(outboxHoldRetry),
  {
    schedule: OUTBOX_HOLD_RETRY_SCHEDULE,
  },
);
