import { describe, expect, it } from 'vitest';
import { OrderCache } from '../../src/core/processor/orderCache.js';
import { OrderProcessor } from '../../src/core/processor/orderProcessor.js';
import { readOrderView } from '../../src/core/order/readOrderView.js';
import type { CommitOutcome, OrderStore } from '../../src/core/ports/orderStore.js';
import { InMemoryOrderStore, ManualClock, RecordingSettlement, RecordingTelemetry } from '../support/fakes/index.js';
import { entriesFor, makeHarness, messageFor, testOptions, uniqueOrderId } from './support/fixtures.js';

describe('order processor, failures (rule 8) and settlement', () => {
  it('retries a transient commit failure with backoff and applies the entry once', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    h.store.injectFault({ on: 'commit', kind: 'transient', times: 2 });
    // Act
    const { result, settlement } = await h.send(e.added(2, 't-1', 10));
    // Assess
    expect(result.outcome).toBe('applied');
    expect(settlement.calls).toEqual([{ action: 'complete' }]);
    expect(h.clock.sleeps).toEqual([75, 150]); // equal jitter at random 0.5: 3/4 of 100, then of 200
    expect(h.telemetry.counted('convoy.store.retries')).toBe(2);
  });

  it('completes a retry after an outcome-unknown commit that did commit as a duplicate of its own record (rule 2): applied once', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    h.store.injectFault({ on: 'commit', kind: 'outcomeUnknown' });
    // Act
    const { result, settlement } = await h.send(e.added(2, 't-1', 10));
    // Assess
    expect(result).toMatchObject({ outcome: 'duplicate', rule: 2 });
    expect(settlement.calls).toEqual([{ action: 'complete' }]);
    const stored = await readOrderView(h.store, orderId);
    expect(stored).toMatchObject({ lastSequence: 2, total: 10 });
    expect(h.telemetry.counted('convoy.entries.duplicate')).toBe(1);
    expect(h.telemetry.counted('convoy.entries.applied')).toBe(1);
    expect(h.store.calls.commits).toBe(2); // the retry reads the order and the record, and writes nothing
  });

  it('completes a retry after an outcome-unknown park that did commit as a duplicate, parked once', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    h.store.injectFault({ on: 'commit', kind: 'outcomeUnknown' });
    // Act
    const { result } = await h.send(e.added(3, 't-1', 10));
    // Assess
    expect(result.outcome).toBe('duplicate');
    expect((await readOrderView(h.store, orderId))?.parked).toEqual([{ sequence: 3, entryId: `${orderId}-e3` }]);
  });

  it('drains each parked entry once when a drain commit has an unknown outcome', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.added(3, 't-2', 5));
    await h.send(e.added(4, 't-3', 7));
    h.store.injectFault({ on: 'commit', kind: 'outcomeUnknown', skip: 1 }); // the drain of 3, after the apply of 2
    // Act
    const { result } = await h.send(e.added(2, 't-1', 1));
    // Assess
    expect(h.clock.sleeps).toHaveLength(1);
    // The drain counts what it saw commit: 3 went through unseen, 4 after it.
    expect(result).toMatchObject({ outcome: 'applied', drained: 1 });
    const stored = await readOrderView(h.store, orderId);
    expect(stored).toMatchObject({ lastSequence: 4, total: 13, parked: [] });
  });

  it('reports and alerts a rejection whose commit had an unknown outcome once', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.amended(3, 't-unknown', 5));
    h.store.injectFault({ on: 'commit', kind: 'outcomeUnknown', skip: 1 });
    // Act
    const { result } = await h.send(e.added(2, 't-1', 1));
    // Assess
    expect(h.clock.sleeps).toHaveLength(1);
    // The rejection went through unseen; its alert, owed by the order, is raised once all the same.
    expect(result).toMatchObject({ outcome: 'applied', drained: 0, rejected: 0 });
    expect(h.telemetry.alerts.map((a) => a.name)).toEqual(['ParkedEntryRejected']);
    expect((await readOrderView(h.store, orderId))?.rejected).toMatchObject([{ sequence: 3 }]);
  });

  it('confirms a dead-letter decision made on a cached order against a fresh read', async () => {
    // Prepare: another instance applies sequence 2 behind this session's cache
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.added(2, 't-1', 10), new OrderCache());
    // Act: by the stale cache this is sequence 2 amending an unknown transaction
    const { result } = await h.send(e.amended(2, 't-unknown', 1, 'another-entry'));
    // Assess
    expect(result).toMatchObject({ outcome: 'deadLettered', reason: 'SequenceConflict' });
  });

  it('abandons once the transient failures outlast the retry budget, having written nothing', async () => {
    // Prepare
    const h = makeHarness({ transientRetryBudgetMs: 2_000 });
    const orderId = uniqueOrderId();
    h.store.injectFault({ on: 'commit', kind: 'transient', times: 1_000 });
    // Act
    const { result, settlement } = await h.send(entriesFor(orderId).created());
    // Assess
    expect(result).toMatchObject({ outcome: 'abandoned', errorCode: 'StoreTransient' });
    expect(settlement.calls).toEqual([{ action: 'abandon' }]);
    expect(h.clock.sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2_000);
    expect(h.clock.sleeps.length).toBeGreaterThan(3);
    expect(h.store.documents(orderId).size).toBe(0);
    expect(h.telemetry.counted('convoy.entries.abandoned')).toBe(1);
  });

  it('retries a transient failure of the first read of a session', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created(), new OrderCache());
    h.store.injectFault({ on: 'read', kind: 'transient' });
    // Act
    const { result } = await h.send(e.added(2, 't-1', 3), new OrderCache());
    // Assess
    expect(result.outcome).toBe('applied');
  });

  it('abandons at once on a store failure that is not transient', async () => {
    // Prepare
    const h = makeHarness();
    h.store.injectFault({ on: 'commit', kind: 'failed' });
    // Act
    const { result, settlement } = await h.send(entriesFor(uniqueOrderId()).created());
    // Assess
    expect(result).toMatchObject({ outcome: 'abandoned', errorCode: 'StoreFailed' });
    expect(settlement.calls).toEqual([{ action: 'abandon' }]);
    expect(h.clock.sleeps).toEqual([]);
  });

  it('backs off and finally abandons when the order keeps changing under every commit', async () => {
    // Prepare: a store whose commits always meet a newer order document
    const clock = new ManualClock();
    const inner = new InMemoryOrderStore(clock);
    const store: OrderStore = {
      readOrder: (id) => inner.readOrder(id),
      readEntry: (o, id) => inner.readEntry(o, id),
      readTransaction: (o, t) => inner.readTransaction(o, t),
      listTransactions: (o) => inner.listTransactions(o),
      commit: async (): Promise<CommitOutcome> => ({ kind: 'orderChanged', what: 'order document' }),
    };
    const processor = new OrderProcessor({
      store,
      telemetry: new RecordingTelemetry(),
      options: { ...testOptions, transientRetryBudgetMs: 1_000 },
      clock,
      sleep: clock.sleep,
    });
    const settlement = new RecordingSettlement();
    // Act
    const result = await processor.process(messageFor(entriesFor(uniqueOrderId()).created()), { settlement });
    // Assess
    expect(result).toMatchObject({ outcome: 'abandoned', errorCode: 'StoreTransient' });
    expect(settlement.calls).toEqual([{ action: 'abandon' }]);
  });

  it('settles every message exactly once across a mixed session', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    h.store.injectFault({ on: 'commit', kind: 'outcomeUnknown' });
    // Act
    await h.send(e.created());
    await h.send(e.created());
    await h.send(e.added(3, 't-1', 1));
    await h.send(e.added(2, 't-0', 1));
    await h.send(e.amended(4, 't-x', 1));
    await h.send({ body: '{', messageId: 'broken', sessionId: orderId });
    // Assess
    expect(h.settlements.map((s) => s.calls.length)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(h.settlements.map((s) => s.calls[0]?.action)).toEqual([
      'complete',
      'complete',
      'complete',
      'complete',
      'deadLetter',
      'deadLetter',
    ]);
  });

  it('rejects when the settlement itself fails, after the commit', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const settlement = new RecordingSettlement();
    settlement.complete = async () => {
      throw new Error('lock lost');
    };
    // Act
    const act = h.processor.process(messageFor(entriesFor(orderId).created()), { settlement, cache: h.cache });
    // Assess
    await expect(act).rejects.toThrow('lock lost');
    expect(h.store.documents(orderId).has('order')).toBe(true);
  });

  it('cuts long dead-letter descriptions', async () => {
    // Prepare
    const h = makeHarness();
    const extra = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`unexpected${i}`, i]));
    const body = { ...entriesFor('o').created(), ...extra };
    // Act
    const { result, settlement } = await h.send({ body, messageId: 'm', sessionId: 'o' });
    // Assess
    expect(result.description?.length).toBe(1024);
    expect(settlement.calls[0]).toMatchObject({ action: 'deadLetter', reason: 'SchemaValidationFailed' });
  });
});
