import { describe, expect, it } from 'vitest';
import { claimOutboxRecord, retryOutboxRecord } from '../../src/core/outbox/outboxDispatch.js';
import { OutboxDispatcher } from '../../src/core/outbox/outboxDispatcher.js';
import type { OrderEventTarget, OutboundOrderEvent } from '../../src/core/outbox/outboxPorts.js';
import { OutboxProgress } from '../../src/core/outbox/outboxProgress.js';
import type { OutboxDispatchRecord } from '../../src/core/outbox/outboxRecordState.js';
import type { Stored } from '../../src/core/ports/orderStore.js';
import { InMemoryOutboxStore, pendingRecord } from './support/records.js';
import { RecordingTelemetry } from '../../src/core/testing/index.js';

const options = { leaseMs: 60_000, maxAttempts: 1, backoffBaseMs: 1_000, backoffMaxMs: 10_000, completedTtlSeconds: 3_600 };

/** A dispatcher over an in-memory store whose reads of open records are counted per order. */
function setup(fails: (event: OutboundOrderEvent) => boolean = () => false, progressOrders?: number) {
  const store = new InMemoryOutboxStore();
  const reads: string[] = [];
  const realOpen = store.openRecords.bind(store);
  store.openRecords = (orderId) => {
    reads.push(orderId);
    return realOpen(orderId);
  };
  const sent: string[] = [];
  // `hold` keeps deliveries waiting; `delivering` is told each time one starts (so a test knows one is in flight).
  const state = { fails, hold: undefined as Promise<void> | undefined, delivering: (): void => undefined };
  const bus: OrderEventTarget = {
    name: 'order-events',
    async deliver(event) {
      sent.push(event.messageId);
      state.delivering();
      await state.hold;
      if (state.fails(event)) throw new Error('order-events down');
      return { target: 'order-events', detail: 'sent' };
    },
  };
  const telemetry = new RecordingTelemetry();
  const dispatcher = new OutboxDispatcher({ store, targets: [bus], telemetry, options: { ...options, progressOrders } });
  /** Writes a record as the processor's batch would, returning it with the ETag the batch answers. */
  const create = (orderId: string, sequence: number): Stored<OutboxDispatchRecord> => {
    const doc = pendingRecord(orderId, sequence);
    return { doc, etag: store.put(doc) };
  };
  const current = (id: string): Stored<OutboxDispatchRecord> => structuredClone(store.docs.get(id)!);
  return { store, reads, sent, state, telemetry, dispatcher, create, current };
}

const ids = (orderId: string, ...sequences: number[]) => sequences.map((s) => `outbox:${orderId}-${s}`);

describe('outbox fast path: records handed over by the processor', () => {
  it('claims each record right after its predecessor without reading the order, and completes it', async () => {
    // Prepare
    const { reads, sent, dispatcher, create, store } = setup();
    // Act: one record per processed message, then two from one message (an entry and the parked one it drained).
    const reports = [];
    reports.push(await dispatcher.dispatchOrder('o', [create('o', 1)]));
    reports.push(await dispatcher.dispatchOrder('o', [create('o', 2)]));
    reports.push(await dispatcher.dispatchOrder('o', [create('o', 3), create('o', 4)]));
    // Assess
    expect(reads).toEqual([]);
    expect(sent).toEqual(ids('o', 1, 2, 3, 4));
    expect(reports.map((r) => r.delivered)).toEqual([ids('o', 1), ids('o', 2), ids('o', 3, 4)]);
    for (const id of ids('o', 1, 2, 3, 4)) expect(store.get(id)).toMatchObject({ status: 'completed', attempts: 1, ttl: 3_600 });
  });

  it('joins a running pass: a record created meanwhile follows on the fast path', async () => {
    // Prepare
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { reads, sent, dispatcher, create, state } = setup();
    state.hold = gate;
    const firstInFlight = new Promise<void>((resolve) => (state.delivering = resolve));
    const first = dispatcher.dispatchOrder('o', [create('o', 1)]);
    await firstInFlight;
    // Act: record 2 arrives while record 1 is being delivered.
    const joined = dispatcher.dispatchOrder('o', [create('o', 2)]);
    expect(sent).toEqual(ids('o', 1));
    release();
    // Assess
    expect(joined).toBe(first);
    expect((await first).delivered).toEqual(ids('o', 1, 2));
    expect(sent).toEqual(ids('o', 1, 2));
    expect(reads).toEqual([]);
  });

  it('falls back to reading the order when it does not know the records below (a cold dispatcher), then learns', async () => {
    // Prepare: records 1 and 2 were left open by an instance that died; this dispatcher never saw them.
    const { reads, sent, dispatcher, create } = setup();
    create('o', 1);
    create('o', 2);
    // Act
    const cold = await dispatcher.dispatchOrder('o', [create('o', 3)]);
    const warm = await dispatcher.dispatchOrder('o', [create('o', 4)]);
    // Assess: one read, in order; after it, the next record needed none.
    expect(cold.delivered).toEqual(ids('o', 1, 2, 3));
    expect(warm.delivered).toEqual(ids('o', 4));
    expect(sent).toEqual(ids('o', 1, 2, 3, 4));
    expect(reads).toEqual(['o']);
  });

  it('never claims past a failed record, nor past it once an operator retried it', async () => {
    // Prepare: record 2 fails its only attempt and holds the order.
    const { reads, sent, dispatcher, create, current, store, state } = setup((e) => e.body.sequence === 2);
    await dispatcher.dispatchOrder('o', [create('o', 1)]);
    const failed = await dispatcher.dispatchOrder('o', [create('o', 2)]);
    const record3 = create('o', 3);
    const blocked = await dispatcher.dispatchOrder('o', [record3]);
    // Act: the operator retries record 2; record 3 is then handed over again, unchanged (its ETag still valid).
    state.fails = () => false;
    const retried = current('outbox:o-2');
    expect(await store.replace(retryOutboxRecord(retried.doc)!, retried.etag)).toBeDefined();
    const after = await dispatcher.dispatchOrder('o', [record3]);
    // Assess: record 3 waited for record 2 both times, found by reading the order, and went out after it.
    expect(failed).toMatchObject({ failed: ids('o', 2), blockedBy: 'outbox:o-2' });
    expect(blocked).toMatchObject({ delivered: [], blockedBy: 'outbox:o-2' });
    expect(after.delivered).toEqual(ids('o', 2, 3));
    expect(sent).toEqual(ids('o', 1, 2, 2, 3));
    expect(reads).toEqual(['o', 'o']);
  });

  it('loses the claim race to another dispatcher and then only reads what is open, delivering nothing twice', async () => {
    // Prepare: another dispatcher claimed record 1 between its batch and this fast path.
    const { reads, sent, dispatcher, create, store } = setup();
    const record1 = create('o', 1);
    const other = claimOutboxRecord(record1.doc, { leaseMs: 60_000, nowMs: Date.now() })!;
    expect(await store.replace(other, record1.etag)).toBeDefined();
    // Act
    const raced = await dispatcher.dispatchOrder('o', [record1]);
    // Assess
    expect(raced).toMatchObject({ delivered: [], failed: [] });
    expect(sent).toEqual([]);
    expect(reads).toEqual(['o']);
    expect(store.get('outbox:o-1')).toMatchObject({ status: 'in-progress', attempts: 1 });
  });

  it('reads the order for a record it cannot claim as handed over, and skips records it already completed', async () => {
    // Prepare: a copy that says the record is leased (the stored one is pending).
    const { reads, sent, dispatcher, create } = setup();
    const record1 = create('o', 1);
    const leased: Stored<OutboxDispatchRecord> = { ...record1, doc: { ...record1.doc, status: 'in-progress', leaseUntil: '2999-01-01T00:00:00.000Z' } };
    // Act
    const unclaimable = await dispatcher.dispatchOrder('o', [leased]);
    const again = await dispatcher.dispatchOrder('o', [record1]);
    // Assess: the read found it pending and delivered it; handing it over again changes nothing and reads nothing.
    expect(unclaimable.delivered).toEqual(ids('o', 1));
    expect(again.delivered).toEqual([]);
    expect(sent).toEqual(ids('o', 1));
    expect(reads).toEqual(['o']);
  });

  it('reads the order again for a record created while the order was forgotten (bounded memory)', async () => {
    // Prepare: the dispatcher remembers one order.
    const { reads, sent, dispatcher, create } = setup(() => false, 1);
    await dispatcher.dispatchOrder('a', [create('a', 1)]);
    await dispatcher.dispatchOrder('b', [create('b', 1)]);
    // Act
    await dispatcher.dispatchOrder('a', [create('a', 2)]);
    await dispatcher.dispatchOrder('a', [create('a', 3)]);
    // Assess
    expect(sent).toEqual([...ids('a', 1), ...ids('b', 1), ...ids('a', 2, 3)]);
    expect(reads).toEqual(['a']);
  });

  it('stops the fast path after a failed attempt and leaves the backoff to the order read', async () => {
    // Prepare
    const { reads, sent, dispatcher, create, store } = setup((e) => e.body.sequence === 1);
    const report = await dispatcher.dispatchOrder('o', [create('o', 1), create('o', 2)]);
    // Act
    const next = await dispatcher.dispatchOrder('o', [create('o', 3)]);
    // Assess
    expect(report).toMatchObject({ delivered: [], failed: ids('o', 1) });
    expect(next).toMatchObject({ delivered: [], blockedBy: 'outbox:o-1' });
    expect(sent).toEqual(ids('o', 1));
    expect(reads).toEqual(['o']);
    expect(store.get('outbox:o-2')).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('logs a store failure on the fast path and resolves', async () => {
    // Prepare
    const { dispatcher, create, store, telemetry } = setup();
    const record = create('o', 1);
    store.replace = () => Promise.reject(Object.assign(new Error('Cosmos DB write failed (status 503)'), { code: 'StoreTransient' }));
    // Act
    const report = await dispatcher.dispatchOrder('o', [record]);
    // Assess
    expect(report.delivered).toEqual([]);
    expect(telemetry.logs.find((l) => l.message === 'outbox pass stopped')?.fields).toMatchObject({ orderId: 'o', code: 'StoreTransient' });
  });
});

describe('outbox progress', () => {
  it('knows nothing below sequence 1, never moves back, and forgets the least recently advanced order', () => {
    const progress = new OutboxProgress(2);
    expect(progress.completedThrough('a')).toBe(0);
    progress.completed('a', 3);
    progress.completed('a', 2);
    progress.completed('b', 1);
    progress.completed('a', 4);
    progress.completed('c', 1);
    expect([progress.completedThrough('a'), progress.completedThrough('b'), progress.completedThrough('c')]).toEqual([4, 0, 1]);
  });
});
