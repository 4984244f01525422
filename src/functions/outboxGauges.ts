/**
 * Outbox gauges: a timer that reports the holds (`convoy.outbox.holds`) and the relay's lag
 * (`convoy.outbox.lag_seconds`), the figures the Bicep alerts watch, and raises `OutboxFailed` when the lag passes
 * half of `OUTBOX_TTL` (records would otherwise start to expire unrelayed).
 */
import { toStoreError } from '../adapters/cosmosOrderStore.js';
import { relayLag } from '../adapters/outboxLag.js';
import { AlertName } from '../core/index.js';
import { isThrottled } from '../core/errors.js';
import { defineFunction, type AppContext } from './appContext.js';
import { LEASE_CONTAINER, OUTBOX_RELAY_LEASE_PREFIX } from '../adapters/changeFeedLease.js';
import { skippedWhenThrottled } from './throttledTick.js';

/** Every minute, at second 30 (NCRONTAB with seconds), apart from the gap monitor's minute. */
const OUTBOX_GAUGES_SCHEDULE = '30 * * * * *';

/**
 * One run, which reports what it saw (the holds, the lag, each lease's lag); rejects if Cosmos cannot be read (the
 * next occurrence tries again; the function skips a throttled one with a warn line). @internal
 */
export async function outboxGauges(app: AppContext) {
  const leases = app.container.database.container(LEASE_CONTAINER);
  const [holds, lags] = await Promise.all([
    app.outbox.holds.count(),
    relayLag(app.container, leases, OUTBOX_RELAY_LEASE_PREFIX, app.clock.now()).catch((error: unknown) => {
      // relayLag throws the SDK's errors (the CLI reads their status): a 429 among them is the store throttling.
      const translated = toStoreError(error, 'read', "the relay's leases and change feed");
      throw isThrottled(translated) ? translated : error;
    }),
  ]);
  const lagSeconds = Math.max(0, ...lags.map((l) => l.lagMs)) / 1000;
  app.metrics.relayGauges({ holds, lagSeconds });
  if (lagSeconds * 2 > app.config.outboxTtlSeconds) {
    const worst = lags.reduce((a, b) => (b.lagMs > a.lagMs ? b : a));
    app.telemetry.alert(AlertName.OutboxFailed, {
      orderId: '',
      entryId: '',
      sequence: undefined,
      reason: 'relay lag past half of OUTBOX_TTL',
      lagSeconds,
      leaseToken: worst.leaseToken,
      owner: worst.owner,
    });
  }
  return { holds, lagSeconds, leases: lags };
}

/** The function: a timer every minute. */
export const outboxGaugesFunction = defineFunction('timer', 'outboxGauges', skippedWhenThrottled(outboxGauges), {
  schedule: OUTBOX_GAUGES_SCHEDULE,
});
