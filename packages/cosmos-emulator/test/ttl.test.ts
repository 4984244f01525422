import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startHarness } from './harness.js';
import type { Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ ttlSweepIntervalMs: 200 });
});
afterAll(async () => {
  await h.close();
});

// Expiry is judged on the emulator's clock, `Date`: frozen, an item with a 1 s ttl lives as long as the test needs;
// moved past it by hand, it has expired, however fast or slow the requests in between were.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});
const pastOneSecond = (): void => void vi.setSystemTime(Date.now() + 1_100);

describe('time to live', () => {
  it('expires items with their own ttl under defaultTtl -1, keeps the rest, in reads and queries', async () => {
    const c = await h.container({ defaultTtl: -1 });
    await c.items.create({ id: 'inbox', orderId: 't-1', ttl: 1 });
    await c.items.create({ id: 'state', orderId: 't-1' });
    await c.items.create({ id: 'forever', orderId: 't-1', ttl: -1 });
    expect((await c.item('inbox', 't-1').read()).statusCode).toBe(200);
    pastOneSecond();
    expect((await c.item('inbox', 't-1').read()).statusCode).toBe(404);
    const { resources } = await c.items.query('SELECT VALUE c.id FROM c', { partitionKey: 't-1' }).fetchAll();
    expect(resources.sort()).toEqual(['forever', 'state']);
    const cross = await c.items.query('SELECT VALUE COUNT(1) FROM c').fetchAll();
    expect(cross.resources).toEqual([2]);
    // An expired id is free again.
    expect((await c.items.create({ id: 'inbox', orderId: 't-1' })).statusCode).toBe(201);
  });

  it('applies a positive defaultTtl to items without ttl; item ttl -1 overrides it', async () => {
    const c = await h.container({ defaultTtl: 1 });
    await c.items.create({ id: 'short', orderId: 't-2' });
    await c.items.create({ id: 'pinned', orderId: 't-2', ttl: -1 });
    pastOneSecond();
    expect((await c.item('short', 't-2').read()).statusCode).toBe(404);
    expect((await c.item('pinned', 't-2').read()).statusCode).toBe(200);
  });

  it('ignores item ttl when the container has no defaultTtl', async () => {
    const c = await h.container();
    await c.items.create({ id: 'stays', orderId: 't-3', ttl: 1 });
    pastOneSecond();
    expect((await c.item('stays', 't-3').read()).statusCode).toBe(200);
  });
});
