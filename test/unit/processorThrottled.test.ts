import { describe, expect, it } from 'vitest';
import { OrderCache } from '../../src/core/processor/orderCache.js';
import { OrderProcessor } from '../../src/core/processor/orderProcessor.js';
import { readOrderView } from '../../src/core/order/readOrderView.js';
import { InMemoryOrderStore, ManualClock, RecordingSettlement, RecordingTelemetry } from '../support/fakes/index.js';
import { entriesFor, makeHarness, messageFor, testOptions, uniqueOrderId } from './support/fixtures.js';

const LOCK_DURATION_MS = 60_000;
const HOST_RENEWAL_MS = 5 * 60_000; // host.json maxAutoLockRenewalDuration

/** A settlement that keeps the clock time of every lock renewal. */
class RenewalsAt extends RecordingSettlement {
  readonly at: number[] = [];
  constructor(private readonly clock: ManualClock) {
    super();
  }
  override async renewLock(): Promise<void> {
    await super.renewLock();
    this.at.push(this.clock.now());
  }
}

/** The longest stretch, from `from` to `to`, without a renewal. */
function longestUnrenewed(from: number, renewals: number[], to: number): number {
  const points = [from, ...renewals, to];
  return Math.max(...points.slice(1).map((t, i) => t - points[i]!));
}

describe('order processor, a throttling store (rule 8)', () => {
  it('waits out a throttle longer than the lock, its host renewal and the retry budget, keeping the lock, and applies once', async () => {
    // Prepare: 20 minutes of 429s on every call, each saying "retry after 1 s"
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    const throttleMs = 20 * 60_000;
    h.store.injectFault({ on: 'any', kind: 'throttled', retryAfterMs: 1_000, times: throttleMs / 1_000 });
    const settlement = new RenewalsAt(h.clock);
    const startedAt = h.clock.now();
    // Act
    const result = await h.processor.process(messageFor(e.added(2, 't-1', 10)), { settlement, cache: h.cache });
    // Assess
    const waited = h.clock.now() - startedAt;
    expect(waited).toBeGreaterThan(Math.max(LOCK_DURATION_MS, HOST_RENEWAL_MS, testOptions.transientRetryBudgetMs));
    expect(result).toMatchObject({ outcome: 'applied', rule: 1 });
    expect(settlement.calls).toEqual([{ action: 'complete' }]);
    expect(h.clock.sleeps.slice(1).every((ms) => ms === 1_000)).toBe(true); // the store's hint, not a backoff
    // The lock was renewed at the first wait, then never left a third of the lock duration (20 s) without renewal.
    expect(settlement.at[0]).toBe(startedAt);
    expect(longestUnrenewed(startedAt, settlement.at, h.clock.now())).toBeLessThanOrEqual(LOCK_DURATION_MS / 3);
    expect(await readOrderView(h.store, orderId)).toMatchObject({ lastSequence: 2, total: 10 });
    expect(h.telemetry.counted('convoy.entries.abandoned')).toBe(0);
  });

  it('waits out a throttle on the drain the entry made due instead of abandoning the applied entry', async () => {
    // Prepare: 3 parked behind the gap; the apply of 2 goes through, then the drain meets 10 minutes of 429s
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.added(3, 't-3', 3));
    h.store.injectFault({ on: 'any', kind: 'throttled', retryAfterMs: 2_000, times: 300, skip: 1 });
    // Act
    const { result, settlement } = await h.send(e.added(2, 't-2', 2));
    // Assess
    expect(result).toMatchObject({ outcome: 'applied', drained: 1 });
    expect(settlement.calls).toEqual([{ action: 'complete' }]);
    expect(settlement.renewals).toBeGreaterThanOrEqual((300 * 2_000) / (LOCK_DURATION_MS / 3));
    expect(await readOrderView(h.store, orderId)).toMatchObject({ lastSequence: 3, total: 5, parked: [] });
  });

  it('still abandons a busy store (503) once the budget is spent: only throttling is waited out', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    h.store.injectFault({ on: 'commit', kind: 'transient', times: 10_000 });
    // Act
    const { result, settlement } = await h.send(e.added(2, 't-1', 10));
    // Assess
    expect(result).toMatchObject({ outcome: 'abandoned', rule: 8, errorCode: 'StoreTransient' });
    expect(settlement.calls).toEqual([{ action: 'abandon' }]);
    expect(settlement.renewals).toBe(0);
  });

  it('stops waiting when the lock is lost, without settling (the broker redelivers)', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    h.store.injectFault({ on: 'commit', kind: 'throttled', retryAfterMs: 1_000, times: 10_000 });
    const settlement = new RecordingSettlement();
    let renewals = 0;
    settlement.renewLock = async () => {
      if (++renewals > 3) throw new Error('session lock lost');
    };
    // Act
    const result = await h.processor.process(messageFor(e.added(2, 't-1', 10)), { settlement, cache: h.cache });
    // Assess: the abandon is tried (and would fail on a lost lock); nothing was written
    expect(result.outcome).toBe('abandoned');
    expect(renewals).toBe(4);
    expect((await readOrderView(h.store, orderId))?.lastSequence).toBe(1);
  });

  it("bounds the gap monitor's drain by the budget even when throttled: no message waits on it", async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.added(3, 't-3', 3));
    h.store.injectFault({ on: 'any', kind: 'throttled', retryAfterMs: 1_000, times: 10_000 });
    const startedAt = h.clock.now();
    // Act + Assess
    await expect(h.processor.drain(orderId)).rejects.toMatchObject({ code: 'StoreTransient' });
    expect(h.clock.now() - startedAt).toBeLessThanOrEqual(testOptions.transientRetryBudgetMs);
  });

  it("holds the instance's other sessions off while the store's hint runs", async () => {
    // Prepare: a sleep that waits until the test lets it go
    const clock = new ManualClock();
    const store = new InMemoryOrderStore(clock);
    const pending: { ms: number; go: () => void }[] = [];
    const sleep = (ms: number) =>
      new Promise<void>((resolve) => {
        pending.push({
          ms,
          go: () => {
            clock.advance(ms);
            resolve();
          },
        });
      });
    const processor = new OrderProcessor({
      store,
      telemetry: new RecordingTelemetry(),
      options: testOptions,
      clock,
      sleep,
      random: () => 0.5,
    });
    const process = (entry: Parameters<typeof messageFor>[0]) =>
      processor.process(messageFor(entry), { settlement: new RecordingSettlement(), cache: new OrderCache() });
    const a = entriesFor(uniqueOrderId());
    const b = entriesFor(uniqueOrderId());
    store.injectFault({ on: 'read', kind: 'throttled', retryAfterMs: 5_000 });
    const first = process(a.created());
    await waitFor(() => pending.length === 1);
    const callsWhileThrottled = { ...store.calls };
    // Act: another session's message arrives while the first waits out the hint
    const second = process(b.created());
    await waitFor(() => pending.length === 2);
    // Assess: it asked the store nothing, and waits as long as the hint
    expect(store.calls).toEqual(callsWhileThrottled);
    expect(pending.map((p) => p.ms)).toEqual([5_000, 5_000]);
    for (const p of pending) p.go();
    expect((await first).outcome).toBe('applied');
    expect((await second).outcome).toBe('applied');
  });
});

/** Lets microtasks run until `ready` holds (the processor's awaits on the in-memory store take a few turns). */
async function waitFor(ready: () => boolean): Promise<void> {
  for (let turn = 0; turn < 1_000 && !ready(); turn++) await Promise.resolve();
  expect(ready()).toBe(true);
}
