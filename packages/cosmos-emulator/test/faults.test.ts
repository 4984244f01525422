import { beforeEach, describe, expect, it } from 'vitest';
import { useOrdersHarness } from './harness.js';

const t = useOrdersHarness();
beforeEach(() => {
  t.h.emulator.faults.clear();
});

type SdkError = { code?: number; retryAfterInMs?: number; message: string };
const failure = (p: Promise<unknown>): Promise<SdkError | undefined> =>
  p.then(
    () => undefined,
    (e: SdkError) => e,
  );

describe('fault injection', () => {
  it('is off by default', () => {
    expect(t.h.emulator.faults.list()).toEqual([]);
  });

  it('answers 429 with x-ms-retry-after-ms for the chosen operation, count times, then recovers', async () => {
    t.h.emulator.faults.add({ operation: 'create', status: 429, count: 2, retryAfterMs: 5 });
    const first = await failure(t.orders.items.create({ id: 'f1', orderId: 'f' }));
    expect(first?.code).toBe(429);
    expect(first?.retryAfterInMs).toBe(5);
    expect((await failure(t.orders.items.create({ id: 'f1', orderId: 'f' })))?.code).toBe(429);
    expect((await t.orders.items.create({ id: 'f1', orderId: 'f' })).statusCode).toBe(201);
    // Nothing was written by the throttled attempts: the third one was the first create.
  });

  it('removes one rule by the handle add returned, leaving the others: a fault that lasts a while', async () => {
    const lasting = t.h.emulator.faults.add({ operation: 'create', status: 429, count: 1_000_000 });
    t.h.emulator.faults.add({ operation: 'read', status: 503 });
    expect((await failure(t.orders.items.create({ id: 'l1', orderId: 'l' })))?.code).toBe(429);
    t.h.emulator.faults.remove(lasting);
    expect((await t.orders.items.create({ id: 'l1', orderId: 'l' })).statusCode).toBe(201);
    expect(t.h.emulator.faults.list()).toMatchObject([{ operation: 'read', status: 503 }]);
  });

  it('injects 503 into batches only, leaving reads alone', async () => {
    t.h.emulator.faults.add({ operation: 'batch', status: 503 });
    await t.orders.items.create({ id: 'r', orderId: 'f2' });
    expect((await t.orders.item('r', 'f2').read()).statusCode).toBe(200);
    const error = await failure(
      t.orders.items.batch([{ operationType: 'Create', resourceBody: { id: 'b', orderId: 'f2' } }], 'f2'),
    );
    expect(error?.message).toMatch(/Service|503|unavailable/i);
    expect((await t.orders.item('b', 'f2').read()).statusCode).toBe(404);
  });

  it('commits and then drops the connection: the client errors but the batch is applied', async () => {
    t.h.emulator.faults.add({ mode: 'commit-then-fail', operation: 'batch' });
    const error = await failure(
      t.orders.items.batch([{ operationType: 'Create', resourceBody: { id: 'unknown-outcome', orderId: 'f3' } }], 'f3'),
    );
    expect(error).toBeDefined();
    expect((await t.orders.item('unknown-outcome', 'f3').read()).statusCode).toBe(200);
    // The retry meets the committed write: 409 inside a 207.
    const retry = await t.orders.items.batch(
      [{ operationType: 'Create', resourceBody: { id: 'unknown-outcome', orderId: 'f3' } }],
      'f3',
    );
    expect(retry.code).toBe(207);
    expect(retry.result?.[0]?.statusCode).toBe(409);
  });

  it('commits and then answers 503 when asked to', async () => {
    t.h.emulator.faults.add({ mode: 'commit-then-fail', operation: 'upsert', reply: '503' });
    const error = await failure(t.orders.items.upsert({ id: 'u', orderId: 'f4' }));
    expect(error?.code).toBe(503);
    expect((await t.orders.item('u', 'f4').read()).statusCode).toBe(200);
  });

  it('is driven over POST /_emulator/faults and rejects invalid rules with 400', async () => {
    const base = t.h.emulator.endpoint;
    const added = await fetch(`${base}_emulator/faults`, {
      method: 'POST',
      body: JSON.stringify({ operation: 'read', status: 408 }),
    });
    expect(added.status).toBe(201);
    expect(((await (await fetch(`${base}_emulator/faults`)).json()) as unknown[]).length).toBe(1);
    await t.orders.items.create({ id: 'x', orderId: 'f5' });
    expect((await failure(t.orders.item('x', 'f5').read()))?.code).toBe(408);
    const invalid = await fetch(`${base}_emulator/faults`, {
      method: 'POST',
      body: JSON.stringify({ operation: 'read', status: 200 }),
    });
    expect(invalid.status).toBe(400);
    expect((await fetch(`${base}_emulator/faults`, { method: 'DELETE' })).status).toBe(204);
  });
});

describe('request counters', () => {
  it('counts requests per operation kind over the handle and GET /_emulator/counters, and resets', async () => {
    await fetch(`${t.h.emulator.endpoint}_emulator/counters`, { method: 'DELETE' });
    await t.orders.items.create({ id: 'c1', orderId: 'cnt' });
    await t.orders.item('c1', 'cnt').read();
    await t.orders.item('c1', 'cnt').read();
    await t.orders.items.batch([{ operationType: 'Upsert', resourceBody: { id: 'c2', orderId: 'cnt' } }], 'cnt');
    const counts = (await (await fetch(`${t.h.emulator.endpoint}_emulator/counters`)).json()) as Record<string, number>;
    expect(counts).toMatchObject({ create: 1, read: 2, batch: 1 });
    expect(t.h.emulator.counters()).toMatchObject({ create: 1, read: 2, batch: 1 });
    t.h.emulator.resetCounters();
    expect(t.h.emulator.counters()).toEqual({ total: 0, requestUnits: { total: 0 }, bytesWritten: { total: 0 } });
  });
});
