import { CosmosClient, PluginOn, ResourceType } from '@azure/cosmos';
import type {
  Container,
  CosmosClientOptions,
  OperationInput,
  PluginConfig,
  Response as CosmosResponse,
} from '@azure/cosmos';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { effectivePartitionKey, rangeIndexOf, splitRanges } from '../src/store/effectivePartitionKey.js';
import { rawRequest, startHarness, uniqueName } from './harness.js';
import type { Harness } from './harness.js';

/*
 * Bulk (`executeBulkOperations`, `items.bulk`): batch requests that are not atomic, addressed to a partition key
 * range, each operation with its own partition key and its own status in one response.
 */

let h: Harness;
let orders: Container;
/** A client with the SDK's default retries, which bulk relies on to re-send throttled operations. */
let retrying: CosmosClient;
let retryingOrders: Container;

beforeAll(async () => {
  h = await startHarness({ partitionKeyRanges: 2 });
  orders = await h.container();
  retrying = new CosmosClient({
    endpoint: h.emulator.endpoint,
    key: h.emulator.key,
    connectionPolicy: { enableEndpointDiscovery: false },
  });
  retryingOrders = retrying.database(orders.database.id).container(orders.id);
});
afterAll(async () => {
  retrying.dispose();
  await h.close();
});
beforeEach(() => {
  h.emulator.faults.clear();
  h.emulator.resetCounters();
});

const create = (orderId: string, id = uniqueName('d'), extra: Record<string, unknown> = {}): OperationInput => ({
  operationType: 'Create',
  partitionKey: orderId,
  resourceBody: { id, orderId, ...extra },
});

/** The range ("0" or "1") the emulator serves a partition key in (two ranges, hash v2). */
function rangeOf(orderId: string): string {
  const epk = effectivePartitionKey(JSON.stringify([orderId]), { paths: ['/orderId'], kind: 'Hash', version: 2 }) ?? '';
  return String(rangeIndexOf(splitRanges(2), epk));
}

/** A raw bulk request to one range, as the SDK sends it. */
function bulkRequest(range: string, ops: unknown[] | string, headers: Record<string, string> = {}): Promise<Response> {
  return rawRequest(h.emulator, 'POST', `/dbs/${orders.database.id}/colls/${orders.id}/docs`, {
    body: typeof ops === 'string' ? ops : JSON.stringify(ops),
    headers: {
      'x-ms-cosmos-is-batch-request': 'True',
      'x-ms-cosmos-batch-atomic': 'False',
      'x-ms-cosmos-batch-continue-on-error': 'True',
      'x-ms-documentdb-partitionkeyrangeid': range,
      ...headers,
    },
  });
}

/** Partition keys that the emulator serves in range `range`. */
function keysIn(range: string, count: number): string[] {
  const keys: string[] = [];
  for (let i = 0; keys.length < count; i++) if (rangeOf(`k-${i}`) === range) keys.push(`k-${i}`);
  return keys;
}

describe('bulk', () => {
  it('runs every operation on its own and answers each status, in order, across partitions', async () => {
    const [p1, p2] = keysIn('0', 2) as [string, string];
    const [p3, p4] = keysIn('1', 2) as [string, string];
    await orders.items.create({ id: 'read-me', orderId: p1, v: 1 });
    await orders.items.create({ id: 'delete-me', orderId: p2 });
    await orders.items.create({ id: 'replace-me', orderId: p3 });
    await orders.items.create({ id: 'patch-me', orderId: p4 });
    h.emulator.resetCounters();
    const results = await orders.items.executeBulkOperations([
      create(p1, 'created'),
      { operationType: 'Upsert', partitionKey: p2, resourceBody: { id: 'upserted', orderId: p2 } },
      { operationType: 'Read', partitionKey: p1, id: 'read-me' },
      { operationType: 'Read', partitionKey: p1, id: 'missing' },
      { operationType: 'Delete', partitionKey: p2, id: 'delete-me' },
      {
        operationType: 'Replace',
        partitionKey: p3,
        id: 'replace-me',
        resourceBody: { id: 'replace-me', orderId: p3, v: 2 },
      },
      {
        operationType: 'Patch',
        partitionKey: p4,
        id: 'patch-me',
        resourceBody: { operations: [{ op: 'add', path: '/great', value: true }] },
      },
    ]);
    expect(results.map((r) => r.response?.statusCode ?? r.error?.code)).toEqual([201, 201, 200, 404, 204, 200, 200]);
    expect(results[2]?.response?.resourceBody).toMatchObject({ id: 'read-me', v: 1 });
    expect(results[6]?.response?.resourceBody).toMatchObject({ great: true });
    expect((await orders.item('created', p1).read()).statusCode).toBe(200);
    expect((await orders.item('delete-me', p2).read()).statusCode).toBe(404);
    expect(h.emulator.counters().bulk).toBe(2); // one request per range
  });

  it('keeps going after a failed operation, and with continueOnError false answers 424 for the rest without running them', async () => {
    await orders.items.create({ id: 'taken', orderId: 'c-1' });
    const going = await orders.items.executeBulkOperations([create('c-1', 'taken'), create('c-1', 'after-default')]);
    expect(going.map((r) => r.response?.statusCode ?? r.error?.code)).toEqual([409, 201]);

    const stopped = await orders.items.bulk(
      [create('c-1', 'taken'), create('c-1', 'after-stop'), create('c-1', 'after-stop-2')],
      { continueOnError: false },
    );
    expect(stopped.map((r) => r.statusCode)).toEqual([409, 424, 424]);
    expect((await orders.item('after-stop', 'c-1').read()).statusCode).toBe(404);
  });

  it('answers 200 when every operation succeeded and 207 when some failed, with a message for each failure', async () => {
    const [key] = keysIn('0', 1);
    const ok = await bulkRequest('0', [
      { operationType: 'Create', partitionKey: JSON.stringify([key]), resourceBody: { id: 'm-1', orderId: key } },
    ]);
    expect(ok.status).toBe(200);
    const mixed = await bulkRequest('0', [
      { operationType: 'Create', partitionKey: JSON.stringify([key]), resourceBody: { orderId: key } },
      { operationType: 'Create', resourceBody: { id: 'no-key', orderId: key } },
      { operationType: 'Frobnicate', partitionKey: JSON.stringify([key]), id: 'x' },
      { operationType: 'Create', partitionKey: JSON.stringify([key]), resourceBody: { id: 'm-2', orderId: key } },
    ]);
    expect(mixed.status).toBe(207);
    const results = (await mixed.json()) as { statusCode: number; message?: string }[];
    expect(results.map((r) => r.statusCode)).toEqual([400, 400, 400, 201]);
    expect(results[0]?.message).toContain("required properties - 'id");
    expect(results[1]?.message).toContain('PartitionKey value must be supplied');
    expect(results[2]?.message).toContain("unknown operationType 'Frobnicate'");
  });

  it('answers a throttled operation 429 with its retry hint while the others run, and the SDK re-sends only that one', async () => {
    const [key] = keysIn('1', 1);
    h.emulator.faults.add({ operation: 'bulkOperation', status: 429, retryAfterMs: 7 });
    const raw = await bulkRequest('1', [
      { operationType: 'Create', partitionKey: JSON.stringify([key]), resourceBody: { id: 't-0', orderId: key } },
      { operationType: 'Create', partitionKey: JSON.stringify([key]), resourceBody: { id: 't-1', orderId: key } },
    ]);
    expect(raw.status).toBe(207);
    expect(await raw.json()).toMatchObject([
      { statusCode: 429, subStatusCode: 3200, retryAfterMilliseconds: 7 },
      { statusCode: 201 },
    ]);
    expect((await orders.item('t-0', key!).read()).statusCode).toBe(404);

    h.emulator.faults.add({ operation: 'bulkOperation', status: 429, retryAfterMs: 5 });
    h.emulator.resetCounters();
    const results = await retryingOrders.items.executeBulkOperations([
      create(key!, 't-2'),
      create(key!, 't-3'),
      create(key!, 't-4'),
    ]);
    // Re-sending an operation that had succeeded would have come back 409.
    expect(results.map((r) => r.response?.statusCode)).toEqual([201, 201, 201]);
    expect(h.emulator.counters().bulk).toBe(2);
  });

  it('answers 410/1002 for an operation of another range and runs the rest; the SDK re-routes that one', async () => {
    const [here] = keysIn('0', 1);
    const [elsewhere] = keysIn('1', 1);
    const res = await bulkRequest('0', [
      {
        operationType: 'Create',
        partitionKey: JSON.stringify([here]),
        resourceBody: { id: 'routed-0', orderId: here },
      },
      {
        operationType: 'Create',
        partitionKey: JSON.stringify([elsewhere]),
        resourceBody: { id: 'routed-1', orderId: elsewhere },
      },
    ]);
    expect(res.status).toBe(207);
    expect(
      ((await res.json()) as { statusCode: number; subStatusCode?: number }[]).map((r) => [
        r.statusCode,
        r.subStatusCode ?? 0,
      ]),
    ).toEqual([
      [201, 0],
      [410, 1002],
    ]);
    expect((await orders.item('routed-1', elsewhere!).read()).statusCode).toBe(404);

    // A client whose first routing map says one range holds everything (as before a split) sends both
    // operations to range 0, learns from the 410 and re-sends the other one to range 1.
    let routingReads = 0;
    const staleRouting: PluginConfig = {
      on: PluginOn.request,
      plugin: async (context, diagnostics, next) => {
        if (context.resourceType !== ResourceType.pkranges || routingReads++ > 0) return next(context);
        const whole = { id: '0', minInclusive: '', maxExclusive: 'FF', _rid: 'stale', _etag: '"stale"' };
        return { headers: {}, result: { PartitionKeyRanges: [whole] }, code: 200 } as CosmosResponse<unknown>;
      },
    };
    // `plugins` is an option the SDK accepts but leaves out of its published typings.
    const options = {
      endpoint: h.emulator.endpoint,
      key: h.emulator.key,
      connectionPolicy: { enableEndpointDiscovery: false },
      plugins: [staleRouting],
    };
    const stale = new CosmosClient(options as CosmosClientOptions);
    const results = await stale
      .database(orders.database.id)
      .container(orders.id)
      .items.executeBulkOperations([create(here!, 'stale-0'), create(elsewhere!, 'stale-1')]);
    stale.dispose();
    expect(results.map((r) => r.response?.statusCode)).toEqual([201, 201]);
    expect(routingReads).toBeGreaterThan(1);
  });

  it('answers 410/1002 to a request for a range the container does not have, running nothing', async () => {
    const [key] = keysIn('0', 1);
    const res = await bulkRequest('7', [
      { operationType: 'Create', partitionKey: JSON.stringify([key]), resourceBody: { id: 'no-range', orderId: key } },
    ]);
    expect(res.status).toBe(410);
    expect(res.headers.get('x-ms-substatus')).toBe('1002');
    expect((await orders.item('no-range', key!).read()).statusCode).toBe(404);
  });

  it('refuses more than 100 operations (400) and a body over 2 MB (413); the SDK splits larger bulks to fit', async () => {
    const [key] = keysIn('0', 1);
    const op = { operationType: 'Read', partitionKey: JSON.stringify([key]), id: 'x' };
    const tooMany = await bulkRequest(
      '0',
      Array.from({ length: 101 }, () => op),
    );
    expect(tooMany.status).toBe(400);
    expect(((await tooMany.json()) as { message: string }).message).toContain('at most 100 operations');
    const big = {
      operationType: 'Create',
      partitionKey: JSON.stringify([key]),
      resourceBody: { id: 'big', orderId: key, pad: 'x'.repeat(1024 * 1024) },
    };
    expect((await bulkRequest('0', [big, { ...big, resourceBody: { ...big.resourceBody, id: 'big-2' } }])).status).toBe(
      413,
    );

    const many = Array.from({ length: 250 }, (_, i) => create(key!, `split-${i}`));
    const results = await orders.items.executeBulkOperations(many);
    expect(results.every((r) => r.response?.statusCode === 201)).toBe(true);
    expect(h.emulator.counters().bulk ?? 0).toBeGreaterThanOrEqual(3);
    const sized = await orders.items.executeBulkOperations(
      Array.from({ length: 6 }, (_, i) => create(key!, `sized-${i}`, { pad: 'y'.repeat(100_000) })),
    );
    expect(sized.every((r) => r.response?.statusCode === 201)).toBe(true);
  });

  it('stops once its answer passes 4 MB: the rest come back 413/3402 unexecuted, and the SDK re-sends them', async () => {
    const [key] = keysIn('1', 1);
    for (let i = 0; i < 3; i++)
      await orders.items.create({ id: `large-${i}`, orderId: key, pad: 'z'.repeat(1_500_000) });
    const reads = [0, 1, 2].map((i) => ({
      operationType: 'Read',
      partitionKey: JSON.stringify([key]),
      id: `large-${i}`,
    }));
    const raw = await bulkRequest('1', [
      ...reads,
      { operationType: 'Create', partitionKey: JSON.stringify([key]), resourceBody: { id: 'late', orderId: key } },
    ]);
    expect(
      ((await raw.json()) as { statusCode: number; subStatusCode?: number }[]).map((r) => [
        r.statusCode,
        r.subStatusCode ?? 0,
      ]),
    ).toEqual([
      [200, 0],
      [200, 0],
      [200, 0],
      [413, 3402],
    ]);
    expect((await orders.item('late', key!).read()).statusCode).toBe(404);

    const results = await orders.items.executeBulkOperations([
      ...[0, 1, 2].map((i) => ({ operationType: 'Read' as const, partitionKey: key!, id: `large-${i}` })),
      create(key!, 'late'),
    ]);
    expect(results.map((r) => r.response?.statusCode)).toEqual([200, 200, 200, 201]);
  });

  it('leaves documents out of the answer with contentResponseOnWriteEnabled false', async () => {
    const [result] = await orders.items.executeBulkOperations([create('quiet')], {
      contentResponseOnWriteEnabled: false,
    });
    expect(result?.response?.statusCode).toBe(201);
    expect(result?.response?.resourceBody).toBeUndefined();
  });
});
