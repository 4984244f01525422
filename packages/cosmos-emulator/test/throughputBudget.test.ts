import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ThroughputBudget } from '../src/throughputBudget.js';
import { startHarness, uniqueName } from './harness.js';
import type { Harness } from './harness.js';

/*
 * The throughput budget (`--throughput`): a token bucket per container, one second's worth deep, refilling at the
 * budget's rate. Driven by a clock the test moves, so nothing here depends on how fast the machine is.
 */

describe('ThroughputBudget', () => {
  it('admits a container until a second of its budget is spent, then says when the refill lets it in again', () => {
    let now = 0;
    const budget = new ThroughputBudget(() => now);
    expect(budget.admit('a', 100)).toBeUndefined();
    budget.spend('a', 100, 60);
    expect(budget.admit('a', 100)).toBeUndefined();
    budget.spend('a', 100, 60);
    // 20 units overdrawn at 100 a second: back above zero after a little over 200 ms.
    expect(budget.admit('a', 100)).toBe(201);
    now = 150;
    expect(budget.admit('a', 100)).toBe(51);
    now = 201;
    expect(budget.admit('a', 100)).toBeUndefined();
  });

  it('meters each container apart and never banks more than one second of budget', () => {
    let now = 0;
    const budget = new ThroughputBudget(() => now);
    budget.spend('a', 100, 100);
    expect(budget.admit('a', 100)).toBeGreaterThan(0);
    expect(budget.admit('b', 100)).toBeUndefined();
    now = 60_000;
    budget.spend('a', 100, 100);
    // A minute idle refilled one second's worth, not sixty.
    expect(budget.admit('a', 100)).toBeGreaterThan(0);
  });
});

describe('an emulator started with a throughput budget', () => {
  let h: Harness;
  let now = 0;
  beforeAll(async () => {
    h = await startHarness({ throughput: 20, throughputClock: () => now });
  });
  afterAll(() => h.close());

  it('answers 429 with substatus 3200 and a retry hint once a container has spent its second, and runs nothing', async () => {
    const container = await h.container();
    const pk = uniqueName('o');
    // 4.95 RU per small create: four leave 0.2 of 20 units, the fifth is admitted on them and overdraws, the sixth waits.
    for (let i = 0; i < 5; i++) await container.items.create({ id: `d${i}`, orderId: pk });
    const refused = await container.items.create({ id: 'd5', orderId: pk }).then(
      () => undefined,
      (error: { code?: number; substatus?: number; retryAfterInMs?: number; headers?: Record<string, string> }) =>
        error,
    );
    expect(refused?.code).toBe(429);
    expect(refused?.substatus).toBe(3200);
    // 4.75 units overdrawn at 20 a second.
    expect(Number(refused?.headers?.['x-ms-retry-after-ms'])).toBe(238);
    expect(Number(refused?.headers?.['x-ms-request-charge'])).toBe(0);
    now += 237;
    await expect(container.items.create({ id: 'd5', orderId: pk })).rejects.toMatchObject({ code: 429 });
    // Nothing ran: once the budget allows, the same create succeeds.
    now += 1;
    expect((await container.items.create({ id: 'd5', orderId: pk })).statusCode).toBe(201);
  });

  it('meters each container on its own, and leaves account and metadata requests alone', async () => {
    const spent = await h.container();
    const other = await h.container();
    for (let i = 0; i < 5; i++) await spent.items.create({ id: `s${i}`, orderId: 'x' });
    await expect(spent.items.create({ id: 'again', orderId: 'x' })).rejects.toMatchObject({ code: 429 });
    expect((await other.items.create({ id: 'o1', orderId: 'x' })).statusCode).toBe(201);
    expect((await spent.read()).statusCode).toBe(200);
    expect((await h.client.getDatabaseAccount()).statusCode).toBe(200);
  });
});

describe('an emulator started without one', () => {
  it('never throttles', async () => {
    const h = await startHarness();
    try {
      const container = await h.container();
      for (let i = 0; i < 50; i++) await container.items.create({ id: `u${i}`, orderId: 'x' });
      expect(h.emulator.counters().requestUnits.total).toBeGreaterThan(200);
    } finally {
      await h.close();
    }
  });

  it('refuses a budget that is not a positive number', async () => {
    await expect(startHarness({ throughput: 0 })).rejects.toThrow(/positive number/);
  });
});
