import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { OutboxDispatcher } from '../../src/core/outbox/outboxDispatcher.js';
import type { OrderEventTarget, OutboundOrderEvent, OutboxCounts } from '../../src/core/outbox/outboxPorts.js';
import type { OutboxDispatchRecord } from '../../src/core/outbox/outboxRecordState.js';
import { InMemoryOutboxStore, pendingRecord } from './support/records.js';
import { RecordingTelemetry } from '../../src/core/testing/index.js';

const options = { leaseMs: 60_000, maxAttempts: 3, backoffBaseMs: 1_000, backoffMaxMs: 10_000, completedTtlSeconds: 3_600 };

/** A target that records what it got and fails while `failing` says so. */
function target(name: string, failing: (event: OutboundOrderEvent) => boolean = () => false) {
  const got: OutboundOrderEvent[] = [];
  const t: OrderEventTarget & { got: OutboundOrderEvent[] } = {
    name,
    got,
    async deliver(event) {
      got.push(event);
      if (failing(event)) throw new Error(`${name} down`);
      return { target: name, detail: 'ok' };
    },
  };
  return t;
}

function setup(targets: OrderEventTarget[], overrides: Partial<typeof options> = {}) {
  const nowMs = Date.parse('2025-01-01T00:00:00.000Z');
  const store = new InMemoryOutboxStore();
  const telemetry = new RecordingTelemetry();
  const clock = { nowMs, now() { return this.nowMs; } };
  const observed = { delivered: 0, failed: [] as boolean[], counts: [] as OutboxCounts[] };
  const dispatcher = new OutboxDispatcher({
    store,
    targets,
    telemetry,
    options: { ...options, ...overrides },
    clock,
    observer: { delivered: () => observed.delivered++, attemptFailed: (_r: OutboxDispatchRecord, e: boolean) => observed.failed.push(e), counts: (c) => observed.counts.push(c) },
  });
  return { store, telemetry, clock, dispatcher, observed };
}

describe('outbox dispatcher', () => {
  it("delivers an order's records to every target in sequence order and completes them with a TTL", async () => {
    // Prepare
    const bus = target('order-events');
    const hook = target('webhook');
    const { store, dispatcher, observed } = setup([bus, hook]);
    for (const s of [3, 1]) store.put(pendingRecord('o', s));
    store.put(pendingRecord('o', 2, { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }));
    store.put(pendingRecord('other', 1));
    // Act
    const report = await dispatcher.dispatchOrder('o');
    // Assess
    expect(report).toEqual({ orderId: 'o', delivered: ['outbox:o-1', 'outbox:o-2', 'outbox:o-3'], failed: [], blockedBy: undefined });
    expect(bus.got.map((e) => e.messageId)).toEqual(['outbox:o-1', 'outbox:o-2', 'outbox:o-3']);
    expect(hook.got.map((e) => e.body.sequence)).toEqual([1, 2, 3]);
    expect(bus.got[1]!.traceparent).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(bus.got[0]!.traceparent).toBeUndefined();
    expect(store.get('outbox:o-2')).toMatchObject({ status: 'completed', ttl: 3_600, attempts: 1, result: [{ target: 'order-events' }, { target: 'webhook' }] });
    expect(store.get('outbox:other-1')).toMatchObject({ status: 'pending' });
    expect(observed.delivered).toBe(3);
  });

  it("keeps a record's trace context across a failed attempt and a sweep by a dispatcher with no memory of it", async () => {
    // Prepare: the first dispatcher's only attempt fails; a second one, as after a restart, sweeps the same store.
    const traceparent = '00-11111111111111111111111111111111-2222222222222222-01';
    let down = true;
    const bus = target('order-events', () => down);
    const first = setup([bus]);
    first.store.put(pendingRecord('o', 1, { traceparent }));
    await first.dispatcher.dispatchOrder('o');
    down = false;
    const second = new OutboxDispatcher({ store: first.store, targets: [bus], telemetry: first.telemetry, options, clock: { now: () => first.clock.nowMs + 60_000 } });
    // Act
    const report = await second.sweep();
    // Assess
    expect(report).toMatchObject({ orders: 1, delivered: 1, failed: 0 });
    expect(bus.got.map((e) => e.traceparent)).toEqual([traceparent, traceparent]);
    expect(first.store.get('outbox:o-1')).toMatchObject({ status: 'completed', attempts: 2, traceparent });
  });

  it('backs off after a failed attempt, holds later records, and skips targets that already took the record', async () => {
    // Prepare
    let webhookDown = true;
    const bus = target('order-events');
    const hook = target('webhook', () => webhookDown);
    const { store, dispatcher, clock, telemetry, observed } = setup([bus, hook]);
    store.put(pendingRecord('o', 1));
    store.put(pendingRecord('o', 2));
    // Act
    const first = await dispatcher.dispatchOrder('o');
    const tooEarly = await dispatcher.dispatchOrder('o');
    webhookDown = false;
    clock.nowMs += 1_000;
    const second = await dispatcher.dispatchOrder('o');
    // Assess
    expect(first.failed).toEqual(['outbox:o-1']);
    expect(tooEarly).toMatchObject({ delivered: [], failed: [] });
    expect(second.delivered).toEqual(['outbox:o-1', 'outbox:o-2']);
    expect(bus.got.map((e) => e.messageId)).toEqual(['outbox:o-1', 'outbox:o-2']);
    expect(hook.got.map((e) => e.messageId)).toEqual(['outbox:o-1', 'outbox:o-1', 'outbox:o-2']);
    expect(store.get('outbox:o-1')).toMatchObject({ status: 'completed', attempts: 2, result: [{ target: 'order-events', detail: 'taken in an earlier attempt' }, { target: 'webhook', detail: 'ok' }] });
    expect(telemetry.logs.some((l) => l.message === 'outbox delivery failed' && l.fields.outcome === 'retrying')).toBe(true);
    expect(observed.failed).toEqual([false]);
  });

  it('marks a record failed after the last attempt, raises OutboxFailed and blocks the order', async () => {
    // Prepare
    const bus = target('order-events', (e) => e.body.sequence === 1);
    const { store, dispatcher, clock, telemetry, observed } = setup([bus]);
    store.put(pendingRecord('o', 1));
    store.put(pendingRecord('o', 2));
    // Act
    const reports = [];
    for (let i = 0; i < 4; i++) {
      reports.push(await dispatcher.dispatchOrder('o'));
      clock.nowMs += 60_000;
    }
    // Assess
    expect(store.get('outbox:o-1')).toMatchObject({ status: 'failed', attempts: 3, lastError: 'order-events down' });
    expect(store.get('outbox:o-2')).toMatchObject({ status: 'pending', attempts: 0 });
    expect(reports[2]!.blockedBy).toBe('outbox:o-1');
    expect(reports[3]).toMatchObject({ delivered: [], failed: [], blockedBy: 'outbox:o-1' });
    expect(bus.got.every((e) => e.body.sequence === 1)).toBe(true);
    expect(telemetry.alerts).toEqual([expect.objectContaining({ name: 'OutboxFailed', fields: expect.objectContaining({ orderId: 'o', entryId: 'o-1', sequence: 1, attempts: 3 }) })]);
    expect(observed.failed).toEqual([false, false, true]);
  });

  it('stops when another dispatcher claimed the record first', async () => {
    // Prepare
    const bus = target('order-events');
    const { store, dispatcher } = setup([bus]);
    store.put(pendingRecord('o', 1));
    const realReplace = store.replace.bind(store);
    let raced = false;
    store.replace = async (record, etag) => {
      if (!raced) {
        raced = true;
        store.put({ ...store.get(record.id)!, status: 'in-progress', leaseUntil: '2999-01-01T00:00:00.000Z' });
      }
      return realReplace(record, etag);
    };
    // Act
    const report = await dispatcher.dispatchOrder('o');
    // Assess
    expect(report.delivered).toEqual([]);
    expect(bus.got).toEqual([]);
  });

  it('logs a completion that lost its claim (lease lapsed and taken over) without counting it', async () => {
    // Prepare
    const { store, dispatcher, telemetry, observed } = setup([
      {
        name: 'order-events',
        async deliver() {
          // Meanwhile another dispatcher reclaims the record.
          const current = store.get('outbox:o-1')!;
          store.put({ ...current, attempts: current.attempts + 1 });
          return { target: 'order-events', detail: 'sent' };
        },
      },
    ]);
    store.put(pendingRecord('o', 1));
    // Act
    const report = await dispatcher.dispatchOrder('o');
    // Assess
    expect(report.delivered).toEqual([]);
    expect(observed.delivered).toBe(0);
    expect(telemetry.logs.find((l) => l.message === 'outbox completion lost its claim')?.fields).toMatchObject({ outcome: 'claimLost' });
  });

  it('aborts a delivery that outlasts its share of the lease and counts it as a failed attempt', async () => {
    // Prepare
    const { store, dispatcher } = setup(
      [
        {
          name: 'webhook',
          deliver: (_e, signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error))),
        },
      ],
      { leaseMs: 50 },
    );
    store.put(pendingRecord('o', 1));
    // Act
    const report = await dispatcher.dispatchOrder('o');
    // Assess
    expect(report.failed).toEqual(['outbox:o-1']);
    expect(store.get('outbox:o-1')!.lastError).toMatch(/delivery exceeded 40 ms/);
  });

  it('coalesces passes for one order and picks up records written meanwhile', async () => {
    // Prepare
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let delivering!: () => void;
    const firstInFlight = new Promise<void>((resolve) => (delivering = resolve));
    const got: string[] = [];
    const { store, dispatcher } = setup([
      {
        name: 'order-events',
        async deliver(event) {
          got.push(event.messageId);
          if (event.body.sequence === 1) {
            delivering();
            await gate;
          }
          return { target: 'order-events', detail: 'sent' };
        },
      },
    ]);
    store.put(pendingRecord('o', 1));
    // Act: record 2 is written and its pass asked for while record 1 is being delivered.
    const first = dispatcher.dispatchOrder('o');
    await firstInFlight;
    store.put(pendingRecord('o', 2));
    const second = dispatcher.dispatchOrder('o');
    release();
    await dispatcher.idle();
    // Assess
    expect(second).toBe(first);
    expect((await first).delivered).toEqual(['outbox:o-1', 'outbox:o-2']);
    expect(got).toEqual(['outbox:o-1', 'outbox:o-2']);
  });

  it('logs and ends a pass when the store fails, without rejecting', async () => {
    const { store, dispatcher, telemetry } = setup([target('order-events')]);
    store.openRecords = async () => {
      throw Object.assign(new Error('Cosmos DB read failed (status 503)'), { code: 'StoreTransient' });
    };
    await expect(dispatcher.dispatchOrder('o')).resolves.toMatchObject({ delivered: [] });
    expect(telemetry.logs.find((l) => l.message === 'outbox pass stopped')?.fields).toMatchObject({ orderId: 'o', code: 'StoreTransient' });
  });

  it('sweeps every due order, skips blocked ones and reports the open counts', async () => {
    // Prepare
    const bus = target('order-events');
    const { store, dispatcher, observed } = setup([bus]);
    store.put(pendingRecord('a', 1));
    store.put(pendingRecord('b', 1, { status: 'failed', attempts: 3 }));
    store.put(pendingRecord('b', 2));
    store.put(pendingRecord('c', 1, { status: 'in-progress', attempts: 1, leaseUntil: '2000-01-01T00:00:00.000Z' }));
    // Act
    const report = await dispatcher.sweep();
    // Assess
    expect(report).toEqual({ orders: 2, delivered: 2, failed: 0, blocked: 1 });
    expect(bus.got.map((e) => e.messageId).sort()).toEqual(['outbox:a-1', 'outbox:c-1']);
    expect(store.get('outbox:c-1')).toMatchObject({ status: 'completed', attempts: 2 });
    expect(observed.counts).toEqual([{ pending: 1, inProgress: 0, failed: 1 }]);
  });
});

describe('outbox dispatcher edges', () => {
  it('runs on the system clock with no observer, and reports a non-Error failure as text', async () => {
    // Prepare: the system clock reads `Date`, frozen here, so the 1 s backoff cannot run out before the sweep.
    vi.useFakeTimers({ toFake: ['Date'] });
    onTestFinished(() => void vi.useRealTimers());
    const store = new InMemoryOutboxStore();
    const telemetry = new RecordingTelemetry();
    const dispatcher = new OutboxDispatcher({
      store,
      telemetry,
      options,
      targets: [
        {
          name: 'order-events',
          deliver: () => Promise.reject('broker said no'),
        },
      ],
    });
    store.put(pendingRecord('o', 1));
    // Act
    const report = await dispatcher.dispatchOrder('o');
    const sweep = await dispatcher.sweep();
    // Assess
    expect(report.failed).toEqual(['outbox:o-1']);
    expect(store.get('outbox:o-1')).toMatchObject({ status: 'pending', lastError: 'broker said no' });
    expect(Date.parse(store.get('outbox:o-1')!.nextAttemptAt!)).toBeGreaterThan(Date.now());
    expect(sweep).toEqual({ orders: 0, delivered: 0, failed: 0, blocked: 0 });
  });

  it('does not alert when the failed attempt cannot be recorded because the claim was lost', async () => {
    // Prepare
    const { store, dispatcher, telemetry } = setup([target('order-events', () => true)], { maxAttempts: 1 });
    store.put(pendingRecord('o', 1));
    const realReplace = store.replace.bind(store);
    let calls = 0;
    store.replace = async (record, etag) => (++calls === 2 ? undefined : realReplace(record, etag));
    // Act
    const report = await dispatcher.dispatchOrder('o');
    // Assess
    expect(report).toMatchObject({ failed: ['outbox:o-1'], blockedBy: undefined });
    expect(telemetry.alerts).toEqual([]);
    expect(store.get('outbox:o-1')).toMatchObject({ status: 'in-progress' });
  });
});
