import type { OperationInput } from '@azure/cosmos';
import { describe, expect, it } from 'vitest';
import { rawRequest, useOrdersHarness } from './harness.js';

const t = useOrdersHarness();

async function exists(id: string, pk: string): Promise<boolean> {
  return (await t.orders.item(id, pk).read()).statusCode === 200;
}

describe('transactional batch', () => {
  it('applies create/replace(ifMatch)/upsert/delete together and answers 200 with per-operation results', async () => {
    const { resource: state } = await t.orders.items.create({ id: 'state', orderId: 'b-1', seq: 0 });
    await t.orders.items.create({ id: 'old', orderId: 'b-1' });
    const ops: OperationInput[] = [
      { operationType: 'Create', resourceBody: { id: 'inbox-1', orderId: 'b-1', ttl: 60 } },
      {
        operationType: 'Replace',
        id: 'state',
        resourceBody: { id: 'state', orderId: 'b-1', seq: 1 },
        ifMatch: state!._etag,
      },
      { operationType: 'Upsert', resourceBody: { id: 'outbox-1', orderId: 'b-1', type: 'outbox' } },
      { operationType: 'Delete', id: 'old' },
      { operationType: 'Read', id: 'state' },
    ];
    const response = await t.orders.items.batch(ops, 'b-1');
    expect(response.code).toBe(200);
    expect(response.result?.map((r) => r.statusCode)).toEqual([201, 200, 201, 204, 200]);
    expect(response.result?.[1]?.eTag).toMatch(/^".+"$/);
    expect(response.result?.[4]?.resourceBody).toMatchObject({ seq: 1 });
    expect(await exists('inbox-1', 'b-1')).toBe(true);
    expect(await exists('old', 'b-1')).toBe(false);
  });

  it('applies nothing when one operation fails: 207, the failing status, 424 for the others', async () => {
    await t.orders.items.create({ id: 'taken', orderId: 'b-2' });
    const response = await t.orders.items.batch(
      [
        { operationType: 'Create', resourceBody: { id: 'fresh', orderId: 'b-2' } },
        { operationType: 'Create', resourceBody: { id: 'taken', orderId: 'b-2' } },
        { operationType: 'Upsert', resourceBody: { id: 'after', orderId: 'b-2' } },
      ],
      'b-2',
    );
    expect(response.code).toBe(207);
    expect(response.result?.map((r) => r.statusCode)).toEqual([424, 409, 424]);
    expect(await exists('fresh', 'b-2')).toBe(false);
    expect(await exists('after', 'b-2')).toBe(false);
  });

  it('honours ifMatch per operation (412 rolls the batch back)', async () => {
    const { resource } = await t.orders.items.create({ id: 's', orderId: 'b-3', v: 1 });
    await t.orders.item('s', 'b-3').replace({ id: 's', orderId: 'b-3', v: 2 });
    const response = await t.orders.items.batch(
      [
        { operationType: 'Create', resourceBody: { id: 'inbox', orderId: 'b-3' } },
        {
          operationType: 'Replace',
          id: 's',
          resourceBody: { id: 's', orderId: 'b-3', v: 3 },
          ifMatch: resource!._etag,
        },
      ],
      'b-3',
    );
    expect(response.code).toBe(207);
    expect(response.result?.map((r) => r.statusCode)).toEqual([424, 412]);
    expect(await exists('inbox', 'b-3')).toBe(false);
    expect((await t.orders.item('s', 'b-3').read()).resource).toMatchObject({ v: 2 });
  });

  it('refuses an operation whose own partition key differs from the batch (400, nothing applied)', async () => {
    const error = await t.orders.items
      .batch(
        [
          { operationType: 'Create', resourceBody: { id: 'a', orderId: 'b-4' } },
          { operationType: 'Create', partitionKey: 'b-5', resourceBody: { id: 'b', orderId: 'b-5' } },
        ],
        'b-4',
      )
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(error?.message).toMatch(/different partition key/);
    expect(await exists('a', 'b-4')).toBe(false);
  });

  it('enforces at most 100 operations and 2 MiB on the wire', async () => {
    const ops = Array.from({ length: 101 }, (_, i) => ({
      operationType: 'Create',
      resourceBody: { id: `n${i}`, orderId: 'b-6' },
    }));
    const path = `/${(t.orders.url as string).replace(/^\//, '')}/docs`;
    const headers = {
      'x-ms-cosmos-is-batch-request': 'true',
      'x-ms-cosmos-batch-atomic': 'true',
      'x-ms-documentdb-partitionkey': '["b-6"]',
    };
    const tooMany = await rawRequest(t.h.emulator, 'POST', path, { body: JSON.stringify(ops), headers });
    expect(tooMany.status).toBe(400);
    const huge = [
      { operationType: 'Create', resourceBody: { id: 'h', orderId: 'b-6', blob: 'x'.repeat(2 * 1024 * 1024) } },
    ];
    const tooBig = await rawRequest(t.h.emulator, 'POST', path, { body: JSON.stringify(huge), headers });
    expect(tooBig.status).toBe(413);
    expect(await exists('n0', 'b-6')).toBe(false);
  });

  it('lets exactly one of two concurrent conflicting batches win whole, 25 rounds', async () => {
    for (let round = 0; round < 25; round += 1) {
      const pk = `race-${round}`;
      const contender = (name: string): OperationInput[] => [
        { operationType: 'Create', resourceBody: { id: `own-${name}`, orderId: pk } },
        { operationType: 'Create', resourceBody: { id: 'inbox', orderId: pk, winner: name } },
        { operationType: 'Create', resourceBody: { id: `more-${name}`, orderId: pk } },
      ];
      const [a, b] = await Promise.all([
        t.orders.items.batch(contender('a'), pk),
        t.orders.items.batch(contender('b'), pk),
      ]);
      const codes = [a.code, b.code].sort();
      expect(codes).toEqual([200, 207]);
      const winner = a.code === 200 ? 'a' : 'b';
      const loser = winner === 'a' ? 'b' : 'a';
      const loserResult = (winner === 'a' ? b : a).result?.map((r) => r.statusCode);
      expect(loserResult).toEqual([424, 409, 424]);
      expect((await t.orders.item('inbox', pk).read()).resource).toMatchObject({ winner });
      expect(await exists(`own-${winner}`, pk)).toBe(true);
      expect(await exists(`own-${loser}`, pk)).toBe(false);
      expect(await exists(`more-${loser}`, pk)).toBe(false);
    }
  });

  it('serialises a batch with concurrent single writes on the same partition', async () => {
    const pk = 'mixed';
    const singles = Array.from({ length: 10 }, (_, i) =>
      t.orders.items.create({ id: `k${i}`, orderId: pk }).then(
        (r) => r.statusCode,
        (e: { code: number }) => e.code,
      ),
    );
    const batch = t.orders.items.batch(
      Array.from({ length: 10 }, (_, i) => ({
        operationType: 'Create' as const,
        resourceBody: { id: `k${i}`, orderId: pk, fromBatch: true },
      })),
      pk,
    );
    const [codes, batchResponse] = await Promise.all([Promise.all(singles), batch]);
    const { resources } = await t.orders.items.query('SELECT * FROM c', { partitionKey: pk }).fetchAll();
    expect(resources).toHaveLength(10);
    if (batchResponse.code === 200) {
      expect(resources.every((d) => d.fromBatch === true)).toBe(true);
      expect(codes.every((c) => c === 409)).toBe(true);
    } else {
      expect(resources.some((d) => d.fromBatch === true)).toBe(false);
      expect(codes.filter((c) => c === 201)).toHaveLength(10 - codes.filter((c) => c === 409).length);
    }
  });
});
