import { describe, expect, it } from 'vitest';
import { type Entry } from '../../src/core/index.js';
import { OrderCache } from '../../src/core/processor/orderCache.js';
import { OrderProcessor } from '../../src/core/processor/orderProcessor.js';
import type { OrderStore } from '../../src/core/ports/orderStore.js';
import type { AppliedEntryRecord } from '../../src/core/documents/entryRecord.js';
import { InMemoryOrderStore, ManualClock, RecordingSettlement, RecordingTelemetry } from '../support/fakes/index.js';
import { entriesFor, messageFor, testOptions, uniqueOrderId } from './support/fixtures.js';

/** A small seeded PRNG (mulberry32), so a failing interleaving can be replayed by its seed. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** `inner`, but every call first yields to the event loop 0–3 times, so two callers' calls interleave. */
function interleaving(inner: InMemoryOrderStore, random: () => number): OrderStore {
  const pause = async () => {
    for (let n = Math.floor(random() * 4); n > 0; n--) await new Promise((resolve) => setImmediate(resolve));
  };
  return {
    readOrder: async (orderId) => (await pause(), inner.readOrder(orderId)),
    readEntry: async (orderId, id) => (await pause(), inner.readEntry(orderId, id)),
    readTransaction: async (orderId, transactionId) => (await pause(), inner.readTransaction(orderId, transactionId)),
    listTransactions: async (orderId) => (await pause(), inner.listTransactions(orderId)),
    commit: async (orderId, operations) => (await pause(), inner.commit(orderId, operations)),
  };
}

/** One instance: its own cache and telemetry; handles its messages in turn, redelivering abandoned ones. */
async function runInstance(store: OrderStore, clock: ManualClock, entries: Entry[]) {
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
  const outcomes: string[] = [];
  for (const entry of entries) {
    for (let delivery = 1; delivery <= 5; delivery++) {
      const settlement = new RecordingSettlement();
      const result = await processor.process(messageFor(entry, { deliveryCount: delivery }), { settlement, cache });
      expect(settlement.calls).toHaveLength(1);
      outcomes.push(result.outcome);
      if (result.outcome !== 'abandoned') break;
    }
  }
  return { telemetry, outcomes };
}

describe('order processor, two instances interleaving commits on one order', () => {
  it.each(Array.from({ length: 25 }, (_, i) => i + 1))(
    'applies every entry exactly once and in order (seed %i)',
    async (seed) => {
      // Prepare: after a lost session lock both instances hold messages of the same order, some the same ones
      const clock = new ManualClock();
      const inner = new InMemoryOrderStore(clock);
      const store = interleaving(inner, seeded(seed));
      const orderId = uniqueOrderId();
      const e = entriesFor(orderId);
      const all = [
        e.created(),
        e.added(2, 't-1', 100),
        e.added(3, 't-2', 20),
        e.added(4, 't-3', 3),
        e.added(5, 't-4', -5),
        e.amended(6, 't-1', 110),
        e.added(7, 't-5', 7),
        e.deleted(8),
      ];
      const pick = (...sequences: number[]) => sequences.map((s) => all[s - 1]!);
      // Act
      const [a, b] = await Promise.all([
        runInstance(store, clock, pick(1, 2, 4, 3, 6, 5)),
        runInstance(store, clock, pick(2, 3, 5, 4, 7, 8, 6, 1)),
      ]);
      // Assess
      const docs = inner.documents(orderId);
      expect(docs.get('order')).toMatchObject({
        lastSequence: 8,
        state: { status: 'deleted', total: 135, transactionCount: 5 },
        parked: [],
        rejected: [],
      });
      expect((await inner.listTransactions(orderId)).map((t) => [t.transactionId, t.amount, t.addedSequence])).toEqual([
        ['t-1', 110, 2],
        ['t-2', 20, 3],
        ['t-3', 3, 4],
        ['t-4', -5, 5],
        ['t-5', 7, 7],
      ]);
      for (const entry of all) {
        const record = docs.get(`entry:order-processor:${entry.entryId}`) as AppliedEntryRecord | undefined;
        expect(record).toMatchObject({ status: 'applied', sequence: entry.sequence });
        expect(record?.event.data.order.lastSequence).toBe(entry.sequence);
      }
      expect([...docs.values()].filter((d) => d.docType === 'entry')).toHaveLength(all.length);
      const outcomes = [...a.outcomes, ...b.outcomes];
      expect(outcomes.filter((o) => o === 'deadLettered')).toEqual([]);
      const applied = a.telemetry.counted('convoy.entries.applied') + b.telemetry.counted('convoy.entries.applied');
      if (!outcomes.includes('abandoned')) expect(applied).toBe(all.length);
      expect(applied).toBeLessThanOrEqual(all.length);
    },
  );
});
