import { describe, expect, it } from 'vitest';
import { entriesFor, makeHarness, uniqueOrderId } from './support/fixtures.js';

describe('order processor, one retry budget per message (rule 8)', () => {
  it('gives the drain only what the entry step left of the message budget, then abandons', async () => {
    // Prepare: the apply of 2 needs six retries (4,725 ms of backoff); then every read of the drain fails
    const h = makeHarness({ transientRetryBudgetMs: 10_000 });
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.added(3, 't-3', 3));
    h.store.injectFault({ on: 'commit', kind: 'transient', times: 6 });
    // A transient commit wrote nothing, so the cached order still holds: every later read is the drain's.
    h.store.injectFault({ on: 'read', kind: 'transient', times: 10_000 });
    const startedAt = h.clock.now();
    // Act
    const { result } = await h.send(e.added(2, 't-2', 2));
    // Assess
    const slept = h.clock.sleeps.reduce((a, b) => a + b, 0);
    expect(result).toMatchObject({ outcome: 'abandoned', errorCode: 'StoreTransient' });
    expect(slept).toBeGreaterThan(4_725); // the drain did retry, within what was left
    expect(slept).toBeLessThanOrEqual(10_000);
    expect(h.clock.now() - startedAt).toBeLessThanOrEqual(10_000);
  });
});
