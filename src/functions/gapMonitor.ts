/**
 * Gap monitor: a timer that raises `GapTooOld` once per gap older than `GAP_ALERT_AGE`, reports the parked gauges,
 * and resumes drains that stopped half-way (rule 5; the decisions are `src/core/order/gapMonitor.ts`'s).
 */
import type { InvocationContext, Timer } from '@azure/functions';
import { sharedMetrics } from '../adapters/metrics.js';
import { runGapMonitor, type GapMonitorReport } from '../core/index.js';
import { appContext } from './appContext.js';
import { register } from './register.js';

/** Every minute, on the minute (NCRONTAB with seconds). */
const GAP_MONITOR_SCHEDULE = '0 * * * * *';

/** One scan; rejects if Cosmos cannot be queried (the next occurrence tries again). @internal */
export async function gapMonitor(_timer: Timer, _context: InvocationContext): Promise<GapMonitorReport> {
  const app = appContext();
  return runGapMonitor({
    store: app.store(),
    telemetry: app.telemetry,
    gapAlertAgeMs: app.config.gapAlertAgeMs,
    gapAlertRepeatMs: app.config.gapAlertRepeatMs,
    metrics: sharedMetrics(),
    // The drained entries' outbox records reach the relay through the change feed like any other.
    drain: (orderId) => app.processor().drain(orderId, { cache: app.orderCache }),
  });
}

register.timer('gapMonitor', { schedule: GAP_MONITOR_SCHEDULE, handler: gapMonitor });
