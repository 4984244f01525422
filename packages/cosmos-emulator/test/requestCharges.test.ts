import { ChangeFeedStartFrom } from '@azure/cosmos';
import type { ItemDefinition } from '@azure/cosmos';
import { describe, expect, it } from 'vitest';
import { CHARGE_CONSTANTS, storedSize } from '../src/requestCharge.js';
import { useOrdersHarness } from './harness.js';

/*
 * Request charges as the real SDK reads them (`x-ms-request-charge`, a batch's per-operation `requestCharge`),
 * against the table's rows: an item of exactly 64 KB or 256 KB as stored must charge exactly those rows.
 */

const t = useOrdersHarness();
const KB = 1024;

/** Writes item `id` so that it is exactly `bytes` long as stored (system properties included); returns the replace's charge. */
async function sized(id: string, pk: string, bytes: number): Promise<number> {
  const { resource } = await t.orders.items.upsert({ id, orderId: pk, pad: '' });
  const padding = bytes - storedSize(resource);
  const replaced = await t.orders.item(id, pk).replace({ id, orderId: pk, pad: 'x'.repeat(padding) });
  // _etag and _ts keep their lengths, so the padding lands the stored item on the size asked for.
  expect(storedSize(replaced.resource)).toBe(bytes);
  return replaced.requestCharge;
}

describe('point operations', () => {
  it('charge a small item the 1 KB rows: 4.95 to create, replace, upsert, patch or delete it, 1 to read it', async () => {
    const item = t.orders.item('p1', 'rc-1');
    expect((await t.orders.items.create({ id: 'p1', orderId: 'rc-1' })).requestCharge).toBe(4.95);
    expect((await item.read()).requestCharge).toBe(1);
    expect((await item.replace({ id: 'p1', orderId: 'rc-1', n: 1 })).requestCharge).toBe(4.95);
    expect((await t.orders.items.upsert({ id: 'p1', orderId: 'rc-1', n: 2 })).requestCharge).toBe(4.95);
    expect((await item.patch([{ op: 'set', path: '/n', value: 3 }])).requestCharge).toBe(4.95);
    expect((await item.delete()).requestCharge).toBe(4.95);
  });

  it('charge an item of 64 KB and of 256 KB as stored the rows for those sizes', async () => {
    expect(await sized('big', 'rc-2', 64 * KB)).toBe(22.67);
    expect((await t.orders.item('big', 'rc-2').read()).requestCharge).toBe(4.76);
    expect(await sized('big', 'rc-2', 256 * KB)).toBe(98.29);
    expect((await t.orders.item('big', 'rc-2').read()).requestCharge).toBe(20.28);
    expect((await t.orders.item('big', 'rc-2').delete()).requestCharge).toBe(98.29);
  });

  it('interpolate between rows: 40 KB is a quarter of the way from the 32 KB row to the 64 KB one', async () => {
    expect(await sized('mid', 'rc-3', 40 * KB)).toBe(14.09);
    expect((await t.orders.item('mid', 'rc-3').read()).requestCharge).toBe(2.83);
  });

  it('charge a read that finds nothing, or a write refused, the refusal charge', async () => {
    expect((await t.orders.item('absent', 'rc-4').read()).requestCharge).toBe(CHARGE_CONSTANTS.refusedOperation);
    await t.orders.items.create({ id: 'taken', orderId: 'rc-4' });
    const refused = await t.orders.items.create({ id: 'taken', orderId: 'rc-4' }).then(
      () => undefined,
      (error: { code?: number; headers?: Record<string, string> }) => error,
    );
    expect(refused?.code).toBe(409);
    expect(Number(refused?.headers?.['x-ms-request-charge'])).toBe(CHARGE_CONSTANTS.refusedOperation);
  });
});

describe('transactional batch', () => {
  it('carries each operation charge in its result and the sum in the header', async () => {
    await t.orders.items.create({ id: 'r', orderId: 'rc-5' });
    const response = await t.orders.items.batch(
      [
        { operationType: 'Create', resourceBody: { id: 'c', orderId: 'rc-5' } },
        { operationType: 'Read', id: 'r' },
        { operationType: 'Upsert', resourceBody: { id: 'u', orderId: 'rc-5' } },
      ],
      'rc-5',
    );
    expect(response.result?.map((r) => r.requestCharge)).toEqual([4.95, 1, 4.95]);
    expect(Number(response.headers['x-ms-request-charge'])).toBe(10.9);
  });

  it('charges a failed batch only the refused operation: the rest answer 424 and charge nothing', async () => {
    await t.orders.items.create({ id: 'taken', orderId: 'rc-6' });
    const response = await t.orders.items.batch(
      [
        { operationType: 'Create', resourceBody: { id: 'fresh', orderId: 'rc-6' } },
        { operationType: 'Create', resourceBody: { id: 'taken', orderId: 'rc-6' } },
      ],
      'rc-6',
    );
    expect(response.result?.map((r) => [r.statusCode, r.requestCharge])).toEqual([
      [424, 0],
      [409, CHARGE_CONSTANTS.refusedOperation],
    ]);
    expect(Number(response.headers['x-ms-request-charge'])).toBe(CHARGE_CONSTANTS.refusedOperation);
  });
});

describe('queries and change feed reads', () => {
  it('charge a query page its base plus each item returned by the read row of its size', async () => {
    await t.orders.items.create({ id: 'q1', orderId: 'rc-7' });
    await sized('q2', 'rc-7', 64 * KB);
    const query = t.orders.items.query<ItemDefinition>('SELECT * FROM c', { partitionKey: 'rc-7' });
    const { resources, requestCharge } = await query.fetchAll();
    expect(resources).toHaveLength(2);
    // The base (2.8), 1 for the small item, 4.76 for the 64 KB one.
    expect(CHARGE_CONSTANTS.queryBase).toBe(2.8);
    expect(requestCharge).toBe(8.56);
  });

  it('charge a change feed read its base plus each item, and a read that finds nothing the base alone', async () => {
    await t.orders.items.create({ id: 'f1', orderId: 'rc-8' });
    await t.orders.items.create({ id: 'f2', orderId: 'rc-8' });
    const feed = t.orders.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning('rc-8') });
    const first = await feed.readNext();
    expect(first.result).toHaveLength(2);
    expect(first.requestCharge).toBe(CHARGE_CONSTANTS.changeFeedBase + 2);
    const next = await feed.readNext();
    expect(next.result).toHaveLength(0);
    expect(next.requestCharge).toBe(CHARGE_CONSTANTS.changeFeedBase);
  });
});

describe('GET /_emulator/counters', () => {
  it('adds the request units charged and the bytes written, by kind, and resets them with the counts', async () => {
    t.h.emulator.resetCounters();
    const created = await t.orders.items.create({ id: 'k1', orderId: 'rc-9' });
    await t.orders.item('k1', 'rc-9').read();
    await t.orders.items.batch([{ operationType: 'Upsert', resourceBody: { id: 'k2', orderId: 'rc-9' } }], 'rc-9');
    const upserted = await t.orders.item('k2', 'rc-9').read();
    await t.orders.item('k1', 'rc-9').delete();
    const counters = (await (await fetch(`${t.h.emulator.endpoint}_emulator/counters`)).json()) as Record<
      string,
      Record<string, number>
    >;
    expect(counters['requestUnits']).toEqual({ total: 16.85, create: 4.95, read: 2, batch: 4.95, delete: 4.95 });
    // A read or a delete writes nothing.
    const [a, b] = [storedSize(created.resource), storedSize(upserted.resource)];
    expect(counters['bytesWritten']).toEqual({ total: a + b, create: a, batch: b });
    t.h.emulator.resetCounters();
    expect(t.h.emulator.counters().requestUnits).toEqual({ total: 0 });
    expect(t.h.emulator.counters().bytesWritten).toEqual({ total: 0 });
  });
});
