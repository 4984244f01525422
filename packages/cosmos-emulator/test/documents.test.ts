import type { PatchOperation } from '@azure/cosmos';
import { describe, expect, it } from 'vitest';
import { useOrdersHarness } from './harness.js';

const t = useOrdersHarness();

async function statusOf(
  promise: Promise<unknown>,
): Promise<{ code: number; substatus?: number; body?: { code?: string } }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: number; substatus?: number; body?: { code?: string } };
  }
  throw new Error('expected the call to fail');
}

describe('documents', () => {
  it('creates a document with system properties and a quoted etag (201)', async () => {
    const { statusCode, resource, headers } = await t.orders.items.create({ id: 'd1', orderId: 'o-1', total: 10 });
    expect(statusCode).toBe(201);
    expect(resource).toMatchObject({ id: 'd1', orderId: 'o-1', total: 10 });
    expect(resource?._rid).toMatch(/^[A-Za-z0-9+\-=]+$/);
    expect(resource?._self).toContain(`/docs/${resource?._rid}/`);
    expect(resource?._etag).toMatch(/^".+"$/);
    expect(typeof resource?._ts).toBe('number');
    expect(headers['x-ms-session-token']).toMatch(/^0:-1#\d+$/);
    expect(headers['x-ms-activity-id']).toBeTruthy();
  });

  it('answers 409 Conflict for a duplicate id in the same partition, and allows it in another', async () => {
    await t.orders.items.create({ id: 'dup', orderId: 'o-2' });
    const error = await statusOf(t.orders.items.create({ id: 'dup', orderId: 'o-2' }));
    expect(error.code).toBe(409);
    expect(error.body?.code).toBe('Conflict');
    const other = await t.orders.items.create({ id: 'dup', orderId: 'o-3' });
    expect(other.statusCode).toBe(201);
  });

  it('reads 200, answers 404 for a missing id and 304 for a matching If-None-Match', async () => {
    const { resource } = await t.orders.items.create({ id: 'r1', orderId: 'o-4' });
    const read = await t.orders.item('r1', 'o-4').read();
    expect(read.statusCode).toBe(200);
    expect(read.resource?._etag).toBe(resource?._etag);
    const missing = await t.orders.item('nope', 'o-4').read();
    expect(missing.statusCode).toBe(404);
    const wrongPartition = await t.orders.item('r1', 'o-5').read();
    expect(wrongPartition.statusCode).toBe(404);
    const notModified = await t.orders
      .item('r1', 'o-4')
      .read({ accessCondition: { type: 'IfNoneMatch', condition: resource!._etag } });
    expect(notModified.statusCode).toBe(304);
  });

  it('replaces with a matching If-Match (200, new etag) and refuses a stale one (412)', async () => {
    const { resource } = await t.orders.items.create({ id: 'p1', orderId: 'o-6', v: 1 });
    const replaced = await t.orders
      .item('p1', 'o-6')
      .replace(
        { id: 'p1', orderId: 'o-6', v: 2 },
        { accessCondition: { type: 'IfMatch', condition: resource!._etag } },
      );
    expect(replaced.statusCode).toBe(200);
    expect(replaced.resource?._etag).not.toBe(resource?._etag);
    expect(replaced.resource?._rid).toBe(resource?._rid);
    const stale = await statusOf(
      t.orders
        .item('p1', 'o-6')
        .replace(
          { id: 'p1', orderId: 'o-6', v: 3 },
          { accessCondition: { type: 'IfMatch', condition: resource!._etag } },
        ),
    );
    expect(stale.code).toBe(412);
    const missing = await statusOf(t.orders.item('ghost', 'o-6').replace({ id: 'ghost', orderId: 'o-6' }));
    expect(missing.code).toBe(404);
  });

  it('upserts: 201 when new, 200 when it replaces', async () => {
    const first = await t.orders.items.upsert({ id: 'u1', orderId: 'o-7', v: 1 });
    expect(first.statusCode).toBe(201);
    const second = await t.orders.items.upsert({ id: 'u1', orderId: 'o-7', v: 2 });
    expect(second.statusCode).toBe(200);
    expect((await t.orders.item('u1', 'o-7').read()).resource).toMatchObject({ v: 2 });
  });

  it('deletes with 204, then 404; a stale If-Match on delete is 412', async () => {
    const { resource } = await t.orders.items.create({ id: 'x1', orderId: 'o-8' });
    await t.orders.item('x1', 'o-8').replace({ id: 'x1', orderId: 'o-8', touched: true });
    const stale = await statusOf(
      t.orders.item('x1', 'o-8').delete({ accessCondition: { type: 'IfMatch', condition: resource!._etag } }),
    );
    expect(stale.code).toBe(412);
    const deleted = await t.orders.item('x1', 'o-8').delete();
    expect(deleted.statusCode).toBe(204);
    expect((await statusOf(t.orders.item('x1', 'o-8').delete())).code).toBe(404);
  });

  it('patches set/incr/add/remove and honours a filter predicate', async () => {
    await t.orders.items.create({ id: 'pa', orderId: 'o-9', count: 1, tags: ['a'], drop: true, status: 'open' });
    const ops: PatchOperation[] = [
      { op: 'set', path: '/status', value: 'paid' },
      { op: 'incr', path: '/count', value: 2 },
      { op: 'add', path: '/tags/-', value: 'b' },
      { op: 'remove', path: '/drop' },
    ];
    const patched = await t.orders.item('pa', 'o-9').patch(ops);
    expect(patched.statusCode).toBe(200);
    expect(patched.resource).toMatchObject({ status: 'paid', count: 3, tags: ['a', 'b'] });
    expect(patched.resource).not.toHaveProperty('drop');
    const failed = await statusOf(
      t.orders
        .item('pa', 'o-9')
        .patch({ condition: "from c where c.status = 'open'", operations: [{ op: 'set', path: '/x', value: 1 }] }),
    );
    expect(failed.code).toBe(412);
    const immutable = await statusOf(
      t.orders.item('pa', 'o-9').patch([{ op: 'set', path: '/orderId', value: 'other' }]),
    );
    expect(immutable.code).toBe(400);
  });

  it('rejects documents over 2 MiB with 413 and keeps serving', async () => {
    const error = await statusOf(
      t.orders.items.create({ id: 'big', orderId: 'o-12', blob: 'x'.repeat(2 * 1024 * 1024 + 10) }),
    );
    expect(error.code).toBe(413);
    expect((await t.orders.items.create({ id: 'small', orderId: 'o-12' })).statusCode).toBe(201);
  });

  it('stores documents without the partition key property in the None partition', async () => {
    await t.orders.items.create({ id: 'nopk', other: 1 });
    const { resources } = await t.orders.items.query('SELECT * FROM c WHERE c.id = "nopk"').fetchAll();
    expect(resources).toHaveLength(1);
  });
});
