import { describe, expect, it } from 'vitest';
import { type Entry } from '../../src/core/index.js';
import { OrderCache } from '../../src/core/processor/orderCache.js';
import { OrderProcessor } from '../../src/core/processor/orderProcessor.js';
import { readOrderView } from '../../src/core/order/readOrderView.js';
import type { CommitOutcome, OrderStore } from '../../src/core/ports/orderStore.js';
import { InMemoryOrderStore, ManualClock, RecordingSettlement, RecordingTelemetry } from '../support/fakes/index.js';
import { entriesFor, messageFor, testOptions, uniqueOrderId } from './support/fixtures.js';

/** A processor of its own (its own cache and telemetry) over `store`, as a second instance would be. */
function instance(store: OrderStore, clock: ManualClock) {
  const telemetry = new RecordingTelemetry();
  const cache = new OrderCache();
  const processor = new OrderProcessor({
    store,
    telemetry,
    options: testOptions,
    clock,
    sleep: clock.sleep,
    random: () => 0.5,
  });
  const send = async (entry: Entry) => {
    const settlement = new RecordingSettlement();
    const result = await processor.process(messageFor(entry), { settlement, cache });
    return { result, settlement };
  };
  return { telemetry, cache, processor, send };
}

/** Delegates to `inner`, running `before` ahead of each call it names. */
function hooked(
  inner: InMemoryOrderStore,
  before: { commit?: () => Promise<CommitOutcome | void>; readEntry?: () => Promise<void> },
): OrderStore {
  return {
    readOrder: (orderId) => inner.readOrder(orderId),
    readTransaction: (orderId, transactionId) => inner.readTransaction(orderId, transactionId),
    listTransactions: (orderId) => inner.listTransactions(orderId),
    readEntry: async (orderId, id) => {
      await before.readEntry?.();
      return inner.readEntry(orderId, id);
    },
    commit: async (orderId, write) => {
      const outcome = await before.commit?.();
      return outcome ?? inner.commit(orderId, write);
    },
  };
}

describe('order processor, two instances on one order (a session lock lost)', () => {
  it('reports a duplicate, not applied, when a concurrent instance committed the entry during an unknown outcome', async () => {
    // Prepare: A's commit never reaches the store and its reply is lost; meanwhile B applies the same message
    const clock = new ManualClock();
    const store = new InMemoryOrderStore(clock);
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    const b = instance(store, clock);
    let lost = true;
    const a = instance(
      hooked(store, {
        commit: async () => {
          if (!lost) return;
          lost = false;
          await b.send(e.created());
          return { kind: 'unknown', reason: 'reply lost' };
        },
      }),
      clock,
    );
    // Act
    const fromA = await a.send(e.created());
    // Assess
    expect(fromA.result.outcome).toBe('duplicate');
    expect(b.telemetry.counted('convoy.entries.applied') + a.telemetry.counted('convoy.entries.applied')).toBe(1);
  });

  it('does not take a parked entry drained by the other instance for a store inconsistency', async () => {
    // Prepare: the order at 2 with 3 and 4 parked (the drain after 2 failed); when A is about to read the parked
    // entry its read of the order named, B drains the order first
    const clock = new ManualClock();
    const store = new InMemoryOrderStore(clock);
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    const b = instance(store, clock);
    await b.send(e.created());
    await b.send(e.added(3, 't-3', 3));
    await b.send(e.added(4, 't-4', 4));
    store.injectFault({ on: 'read', kind: 'failed' });
    expect((await b.send(e.added(2, 't-2', 2))).result.outcome).toBe('abandoned');
    let interleaved = 1;
    const a = instance(
      hooked(store, { readEntry: async () => void (interleaved-- > 0 && (await b.processor.drain(orderId))) }),
      clock,
    );
    // Act
    const report = await a.processor.drain(orderId);
    // Assess
    expect(interleaved).toBe(0); // B drained both between A's read of the order and of the entry; A read no other
    expect(report).toMatchObject({ drained: 0 });
    const stored = await readOrderView(store, orderId);
    expect(stored).toMatchObject({ lastSequence: 4, total: 9, parked: [] });
  });

  it('still reports a parked entry missing twice under an unchanged order as StoreInconsistent', async () => {
    // Prepare
    const clock = new ManualClock();
    const store = new InMemoryOrderStore(clock);
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    const a = instance(store, clock);
    await a.send(e.created());
    await a.send(e.added(3, 't-3', 3));
    store.expire(orderId, `entry:order-processor:${orderId}-e3`);
    store.injectFault({ on: 'read', kind: 'failed', skip: 1 }); // apply 2; its drain's first read finds the record of 3 missing
    await a.send(e.added(2, 't-2', 2));
    // Act
    const act = a.processor.drain(orderId);
    // Assess
    await expect(act).rejects.toMatchObject({ code: 'StoreInconsistent' });
  });
});
