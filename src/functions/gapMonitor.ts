/**
 * Gap monitor: a timer that raises `GapTooOld` once per gap older than `GAP_ALERT_AGE`, reports the parked gauges,
 * and resumes drains that stopped half-way (rule 5; the decisions are `src/core/order/gapMonitor.ts`'s).
 */
import { runGapMonitor, type GapMonitorReport } from '../core/index.js';
import { defineFunction, type AppContext } from './appContext.js';

/** Every minute, on the minute (NCRONTAB with seconds). */
const GAP_MONITOR_SCHEDULE = '0 * * * * *';

/** One scan; rejects if Cosmos cannot be queried (the next occurrence tries again). @internal */
export async function gapMonitor(app: AppContext): Promise<GapMonitorReport> {
  return runGapMonitor({
    store: app.store,
    telemetry: app.telemetry,
    gapAlertAgeMs: app.config.gapAlertAgeMs,
    gapAlertRepeatMs: app.config.gapAlertRepeatMs,
    consumerName: app.config.consumerName,
    metrics: app.metrics,
    // The drained entries' stored events reach the relay through the change feed like any other.
    drain: (orderId) => app.processor.drain(orderId, { cache: app.orderCache }),
  });
}

/** The function: a timer every minute. */
export const gapMonitorFunction = defineFunction('timer', 'gapMonitor', gapMonitor, {
  schedule: GAP_MONITOR_SCHEDULE,
});
