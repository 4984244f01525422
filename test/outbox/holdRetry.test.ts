import { describe, expect, it } from 'vitest';
import { retryDueHolds, type HoldRetryDeps } from '../../src/core/outbox/holdRelease.js';
import { OutboxRelay } from '../../src/core/outbox/outboxRelay.js';
import { AlertName } from '../../src/core/ports/telemetry.js';
import { InMemoryHoldStore, ManualClock, RecordingTelemetry } from '../support/fakes/index.js';
import { FakeSender, FakeWebhook, asChange, outboxRecordOf, keyOf } from './support/relayFakes.js';

const ids = (orderId: string, ...sequences: number[]) => sequences.map((s) => keyOf(orderId, s));
const BACKOFF = { firstMs: 60_000, maxMs: 300_000 };
const MINUTE = 60_000;

/** One app instance: its relay and its hold timer, on one clock. */
function instance(shared: { holds?: InMemoryHoldStore; clock?: ManualClock; webhook?: FakeWebhook } = {}) {
  const clock = shared.clock ?? new ManualClock();
  const holds = shared.holds ?? new InMemoryHoldStore();
  const webhook = shared.webhook ?? new FakeWebhook();
  const sender = new FakeSender();
  const telemetry = new RecordingTelemetry();
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
    options: { retryBudgetMs: 2_000, holdRetry: BACKOFF },
  });
  /** The processor commits the entries, then the change feed hands their stored events to the relay. */
  const relayed = (...records: [string, number][]) => {
    const stored = records.map(([o, s]) => outboxRecordOf(o, s));
    holds.commit(...stored);
    return relay.relay(stored.map((r, i) => asChange(r, i + 1)));
  };
  const retry: HoldRetryDeps = { holds, sender, webhook, backoff: BACKOFF, clock, random, telemetry };
  /** Ticks of the every-minute timer, the clock moved a minute before each. */
  const ticks = async (n: number) => {
    const reports = [];
    for (let i = 0; i < n; i++) {
      clock.advance(MINUTE);
      reports.push(await retryDueHolds(retry));
    }
    return reports;
  };
  return { clock, holds, webhook, sender, telemetry, relay, relayed, retry, ticks };
}

describe('the outboxHoldRetry timer', () => {
  it('releases every hold after the webhook recovers by itself, in per-order order, with no operator', async () => {
    const app = instance();
    for (const o of ['a', 'b', 'c']) app.webhook.failFor(o);
    await app.relayed(['a', 1], ['a', 2], ['b', 1], ['c', 1]);
    await app.relayed(['a', 3]);
    app.webhook.failures.clear();
    const reports = await app.ticks(1);
    expect(reports[0]).toMatchObject({ holds: 3, tried: 3, released: 3 });
    expect(app.webhook.postedFor('a')).toEqual(ids('a', 1, 2, 3));
    expect(app.holds.all()).toEqual([]);
  });

  it('drains a hold within OUTBOX_HOLD_RETRY_MAX of a long outage ending, with no wake-up', async () => {
    const app = instance();
    app.webhook.failFor('a');
    await app.relayed(['a', 1]);
    const reports = await app.ticks(60); // an hour down: the releases back off, at most five minutes apart
    expect(reports.filter((r) => r.tried > 0).length).toBeGreaterThanOrEqual(60 / 5);
    app.webhook.failures.clear();
    const after = await app.ticks(BACKOFF.maxMs / MINUTE);
    expect(after.some((r) => r.released === 1)).toBe(true);
    expect(app.holds.all()).toEqual([]);
    expect(app.webhook.postedFor('a')).toEqual(ids('a', 1));
  });

  it('raises OutboxFailed once for a hold, however long it lasts (the holds gauge alerts on a long one)', async () => {
    const app = instance();
    app.webhook.failFor('a');
    await app.relayed(['a', 1]);
    await app.relayed(['a', 2]);
    await app.ticks(24 * 60);
    expect(app.telemetry.alerts.map((a) => a.name)).toEqual([AlertName.OutboxFailed]);
  });

  it('lets the timers of two instances tick at once: each hold released once', async () => {
    const holds = new InMemoryHoldStore();
    const clock = new ManualClock();
    const webhook = new FakeWebhook();
    const one = instance({ holds, clock, webhook });
    const two = instance({ holds, clock, webhook });
    for (const o of ['a', 'b', 'c']) webhook.failFor(o);
    await one.relayed(['a', 1], ['a', 2], ['b', 1], ['c', 1]);
    webhook.failures.clear();
    clock.advance(MINUTE);
    const [r1, r2] = await Promise.all([retryDueHolds(one.retry), retryDueHolds(two.retry)]);
    expect(r1.released + r2.released).toBe(3);
    expect(webhook.posts.sort()).toEqual([...ids('a', 1, 2), ...ids('b', 1), ...ids('c', 1)].sort());
    expect(holds.all()).toEqual([]);
  });

  it('counts a release the store fails as an error of the tick, and goes on with the others', async () => {
    const app = instance();
    for (const o of ['a', 'b']) app.webhook.failFor(o);
    await app.relayed(['a', 1], ['b', 1]);
    app.webhook.failures.clear();
    const storedEvents = app.holds.storedEvents.bind(app.holds);
    app.holds.storedEvents = async (orderId, ...rest) => {
      if (orderId === 'a') throw Object.assign(new Error('Cosmos answered 503'), { code: 'StoreTransient' });
      return storedEvents(orderId, ...rest);
    };
    const [report] = await app.ticks(1);
    expect(report).toMatchObject({ holds: 2, tried: 2, released: 1, errors: 1 });
    expect(app.telemetry.logs.map((l) => l.message)).toContain('outbox hold release failed; the next tick retries it');
  });
});

describe('joining a hold', () => {
  it('gives a batch up when the marker keeps changing under the relay (the trigger retries it)', async () => {
    const app = instance();
    app.webhook.failFor('a');
    await app.relayed(['a', 1]);
    app.holds.write = async () => ({ kind: 'lost' });
    await expect(app.relayed(['a', 2])).rejects.toMatchObject({ code: 'OutboxHoldKeptChanging' });
    expect(app.holds.all()[0]).toMatchObject({ heldThrough: 1 });
  });
});
