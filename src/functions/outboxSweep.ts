/**
 * Outbox sweep: a timer that delivers the outbox records the fast path missed (a crash, a failed attempt's
 * backoff, a lapsed lease) and refreshes the outbox gauges.
 */
import type { InvocationContext, Timer } from '@azure/functions';
import type { SweepReport } from '../core/outbox/outboxDispatcher.js';
import { appContext } from './appContext.js';
import { outboxRuntime } from './outboxDispatcher.js';
import { register } from './register.js';

/** Every 30 seconds (NCRONTAB with seconds). */
export const OUTBOX_SWEEP_SCHEDULE = '*/30 * * * * *';

/** One sweep; rejects if Cosmos cannot be queried (the next occurrence tries again). */
export async function outboxSweep(_timer: Timer, _context: InvocationContext): Promise<SweepReport> {
  const app = appContext();
  const report = await outboxRuntime(app).dispatcher.sweep();
  if (report.orders > 0 || report.blocked > 0) app.telemetry.log('info', 'outbox sweep', { ...report });
  return report;
}

register.timer('outboxSweep', { schedule: OUTBOX_SWEEP_SCHEDULE, handler: outboxSweep });
