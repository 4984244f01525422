import { describe, expect, it } from 'vitest';
import { retryDueHolds, type HoldRetryDeps } from '../../src/core/outbox/holdRetry.js';
import { WebhookWake } from '../../src/core/outbox/holdWake.js';
import { OutboxRelay } from '../../src/core/outbox/outboxRelay.js';
import type { OutboxHold } from '../../src/core/documents/outboxHold.js';
import { AlertName } from '../../src/core/ports/telemetry.js';
import { InMemoryHoldStore, ManualClock, RecordingTelemetry } from '../support/fakes/index.js';
import { FakeSender, FakeWebhook, asChange, outboxRecordOf, keyOf } from './support/relayFakes.js';

const changes = (...records: [string, number][]) => records.map(([o, s], i) => asChange(outboxRecordOf(o, s), i + 1));
const ids = (orderId: string, ...sequences: number[]) => sequences.map((s) => keyOf(orderId, s));
const BACKOFF = { firstMs: 60_000, maxMs: 3_600_000 };
const MINUTE = 60_000;

/** One app instance: its relay and its hold timer, sharing the webhook wake, on one clock. */
function instance(shared: { holds?: InMemoryHoldStore; clock?: ManualClock; webhook?: FakeWebhook } = {}) {
  const clock = shared.clock ?? new ManualClock();
  const holds = shared.holds ?? new InMemoryHoldStore();
  const webhook = shared.webhook ?? new FakeWebhook();
  const sender = new FakeSender();
  const telemetry = new RecordingTelemetry();
  const wake = new WebhookWake(BACKOFF, clock);
  let seed = 0;
  const random = () => (seed = (seed * 9301 + 49297) % 233280) / 233280;
  const relay = new OutboxRelay({
    sender,
    webhook,
    holds,
    telemetry,
    clock,
    sleep: clock.sleep,
    random,
    wake,
    options: { retryBudgetMs: 2_000, holdRetry: BACKOFF },
  });
  const retry: HoldRetryDeps = {
    holds,
    sender,
    webhook,
    backoff: BACKOFF,
    clock,
    random,
    telemetry,
    wake,
    repeatAlertAfterMs: 3.5 * 86_400_000,
  };
  /** Ticks of the every-minute timer, the clock moved a minute before each. */
  const ticks = async (n: number) => {
    const reports = [];
    for (let i = 0; i < n; i++) {
      clock.advance(MINUTE);
      reports.push(await retryDueHolds(retry));
    }
    return reports;
  };
  return { clock, holds, webhook, sender, telemetry, relay, retry, ticks };
}

describe('the outboxHoldRetry timer', () => {
  it('releases every hold after the webhook recovers by itself, in per-order order, with no operator', async () => {
    // Prepare: a webhook outage holds three orders, one alone in its batch.
    const app = instance();
    app.webhook.failFor('a');
    app.webhook.failFor('b');
    app.webhook.failFor('c');
    await app.relay.relay(changes(['a', 1], ['a', 2], ['b', 1]));
    await app.relay.relay(changes(['c', 1]));
    await app.relay.relay(changes(['a', 3], ['c', 2]));
    expect(app.holds.all().map((h) => h.orderId)).toEqual(['a', 'b', 'c']);
    // The outage outlasts the first releases: they fail and back off.
    const during = await app.ticks(3);
    expect(during.reduce((n, r) => n + r.failed, 0)).toBeGreaterThan(0);
    expect(app.webhook.posts).toEqual([]);
    // Act: the webhook recovers; only the timer runs.
    app.webhook.failures.clear();
    const after = await app.ticks(2);
    // Assess
    expect(app.holds.all()).toEqual([]);
    expect(after.reduce((n, r) => n + r.released, 0)).toBe(3);
    expect(app.webhook.postedFor('a')).toEqual(ids('a', 1, 2, 3));
    expect(app.webhook.postedFor('b')).toEqual(ids('b', 1));
    expect(app.webhook.postedFor('c')).toEqual(ids('c', 1, 2));
  });

  it('drains holds backed off for long within two ticks of the first delivery: the probe, then the wake', async () => {
    const app = instance();
    for (const o of ['a', 'b', 'c', 'd']) app.webhook.failFor(o);
    await app.relay.relay(changes(['a', 1], ['b', 1], ['c', 1], ['d', 1]));
    // Hours of outage: the backoff reaches PT1H, and no hold is due.
    for (let i = 0; i < 240; i++) await app.ticks(1);
    const markers = app.holds.all() as OutboxHold[];
    expect(Math.min(...markers.map((h) => Date.parse(h.nextAttempt) - app.clock.now()))).toBeGreaterThan(2 * MINUTE);
    app.webhook.failures.clear();
    const [first, second] = await app.ticks(2);
    expect(first).toMatchObject({ released: 1, woken: 3 });
    expect(second).toMatchObject({ released: 3 });
    expect(app.holds.all()).toEqual([]);
  });

  it('tries one webhook hold a tick while none is due, so an outage costs one POST a minute', async () => {
    const app = instance();
    for (const o of ['a', 'b']) app.webhook.failFor(o);
    await app.relay.relay(changes(['a', 1], ['b', 1]));
    const reports = await app.ticks(10);
    expect(reports.every((r) => r.tried <= 2)).toBe(true);
    expect(reports.slice(3).map((r) => r.tried)).toEqual([1, 1, 1, 1, 1, 1, 1]);
    expect(reports.slice(3).every((r) => r.failed === 1)).toBe(true);
  });

  it('wakes every webhook hold when the relay delivers to the webhook after a failure', async () => {
    const app = instance();
    app.webhook.failFor('a');
    await app.relay.relay(changes(['a', 1]));
    app.webhook.failFor('b', 1);
    await app.relay.relay(changes(['b', 1]));
    for (let i = 0; i < 5; i++) await app.ticks(1);
    // The webhook is back for everyone: the relay's next delivery (b-2) wakes a's hold.
    app.webhook.failures.clear();
    app.clock.advance(MINUTE);
    await app.relay.relay(changes(['b', 2]));
    const hold = (app.holds.all() as OutboxHold[])[0]!;
    expect(Date.parse(hold.nextAttempt) - app.clock.now()).toBeLessThanOrEqual(30_000);
    expect((await app.ticks(1))[0]).toMatchObject({ released: 1 });
  });

  it('lets the timers of two instances tick at once: each hold released once', async () => {
    const holds = new InMemoryHoldStore();
    const clock = new ManualClock();
    const webhook = new FakeWebhook();
    const one = instance({ holds, clock, webhook });
    const two = instance({ holds, clock, webhook });
    for (const o of ['a', 'b', 'c']) webhook.failFor(o);
    await one.relay.relay(changes(['a', 1], ['a', 2], ['b', 1], ['c', 1]));
    webhook.failures.clear();
    clock.advance(MINUTE);
    const [r1, r2] = await Promise.all([retryDueHolds(one.retry), retryDueHolds(two.retry)]);
    expect(r1.released + r2.released).toBe(3);
    expect(webhook.posts.sort()).toEqual([...ids('a', 1, 2), ...ids('b', 1), ...ids('c', 1)].sort());
    expect(holds.all()).toEqual([]);
  });

  it('raises OutboxFailed once more for a hold older than half of OUTBOX_TTL', async () => {
    const app = instance();
    app.webhook.failFor('a');
    await app.relay.relay(changes(['a', 1]));
    app.clock.advance(3.5 * 86_400_000);
    await app.ticks(2);
    expect(
      app.telemetry.alerts.filter((a) => a.name === AlertName.OutboxFailed && a.fields.reason !== undefined),
    ).toEqual([
      {
        name: AlertName.OutboxFailed,
        fields: expect.objectContaining({ orderId: 'a', reason: 'outbox hold older than half of OUTBOX_TTL' }),
      },
    ]);
  });
});
