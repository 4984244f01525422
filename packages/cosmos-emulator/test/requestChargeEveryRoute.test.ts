import { BulkOperationType, ChangeFeedStartFrom, CosmosClient, PermissionMode, TriggerOperation } from '@azure/cosmos';
import { TriggerType } from '@azure/cosmos';
import type { CosmosClientOptions } from '@azure/cosmos';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperationKind, start } from '../src/index.js';
import type { CosmosEmulator } from '../src/index.js';
import { rawRequest, SUITE_PARTITION_KEY_RANGES, uniqueName } from './harness.js';

/*
 * Every route the router serves, walked through the unmodified SDK (and raw requests for client encryption keys,
 * which the SDK only writes with encryption set up): each successful answer carries a positive
 * `x-ms-request-charge`, as Azure Cosmos DB's do. The walk must reach every operation kind the router knows
 * (`OperationKind`, as the emulator's counters record them), so a route added later without a charge fails here.
 */

/** One HTTP answer the client saw. */
interface Answer {
  method: string;
  path: string;
  status: number;
  charge: number;
}

let emulator: CosmosEmulator;
let client: CosmosClient;
const answers: Answer[] = [];

beforeAll(async () => {
  emulator = await start({ port: 0, partitionKeyRanges: SUITE_PARTITION_KEY_RANGES });
  // The SDK runs a request plugin around each HTTP request it sends, its own metadata reads included.
  const options = {
    endpoint: emulator.endpoint,
    key: emulator.key,
    connectionPolicy: { enableEndpointDiscovery: false, retryOptions: { maxRetryAttemptCount: 0 } },
    plugins: [
      {
        on: 'request',
        plugin: async (
          context: { method: string; path?: string },
          node: unknown,
          next: (c: unknown) => Promise<{ code?: number; headers: Record<string, unknown> }>,
        ) => {
          const response = await next(context);
          answers.push({
            method: context.method,
            path: context.path ?? '',
            status: response.code ?? 0,
            charge: Number(response.headers['x-ms-request-charge']),
          });
          return response;
        },
      },
    ],
  } as unknown as CosmosClientOptions;
  client = new CosmosClient(options);
});

afterAll(async () => {
  client?.dispose();
  await emulator?.close();
});

/** A raw request's answer, recorded like the SDK's. */
async function raw(method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await rawRequest(emulator, method, path, body === undefined ? {} : { body: JSON.stringify(body) });
  answers.push({ method, path, status: response.status, charge: Number(response.headers.get('x-ms-request-charge')) });
  expect(response.status).toBeLessThan(400);
  return response.status === 204 || response.status === 304 ? undefined : response.json();
}

async function walkAccountDatabasesAndContainers(): Promise<void> {
  await client.getDatabaseAccount();
  const { database } = await client.databases.create({ id: uniqueName('walk-db') });
  await database.read();
  await client.databases.readAll().fetchAll();
  await client.databases.query('SELECT * FROM root r').fetchAll();
  const { container } = await database.containers.create({
    id: uniqueName('walk-coll'),
    partitionKey: { paths: ['/pk'] },
    throughput: 400,
  });
  const { resource: definition } = await container.read();
  await database.containers.readAll().fetchAll();
  await container.replace({ ...definition!, defaultTtl: -1 });
  await container.readPartitionKeyRanges().fetchAll();
  const { resource: offer } = await container.readOffer();
  await client.offers.readAll().fetchAll();
  await client.offer(offer!.id).read();
  await client.offer(offer!.id).replace({ ...offer!, content: { ...offer!.content!, offerThroughput: 500 } });
  await container.conflicts.readAll().fetchAll();
  await container.delete();
  await database.delete();
}

async function walkItems(): Promise<void> {
  const { database } = await client.databases.create({ id: uniqueName('walk-items') });
  const { container } = await database.containers.create({ id: uniqueName('coll'), partitionKey: { paths: ['/pk'] } });
  const item = container.item('i1', 'a');
  await container.items.create({ id: 'i1', pk: 'a', n: 0 });
  await item.read();
  await item.replace({ id: 'i1', pk: 'a', n: 1 });
  await container.items.upsert({ id: 'i1', pk: 'a', n: 2 });
  await item.patch([{ op: 'set', path: '/n', value: 3 }]);
  await container.items.query('SELECT * FROM c').fetchAll(); // no partition key: a query plan first
  await raw('GET', `/dbs/${database.id}/colls/${container.id}/docs`); // the SDK reads a feed as a query
  const feed = container.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning() });
  await feed.readNext();
  await feed.readNext(); // nothing new: 304
  await container.items.batch([{ operationType: BulkOperationType.Create, resourceBody: { id: 'b1', pk: 'a' } }], 'a');
  const bulk = await container.items.executeBulkOperations([
    { operationType: BulkOperationType.Create, partitionKey: 'b', resourceBody: { id: 'k1', pk: 'b' } },
  ]);
  expect(bulk.map((r) => r.response?.statusCode)).toEqual([201]);
  await item.delete();
  await container.deleteAllItemsForPartitionKey('b');
  await database.delete();
}

async function walkUsersPermissionsScriptsAndKeys(): Promise<void> {
  const { database } = await client.databases.create({ id: uniqueName('walk-meta') });
  const { container } = await database.containers.create({ id: uniqueName('coll'), partitionKey: { paths: ['/pk'] } });
  const { user } = await database.users.create({ id: 'u1' });
  await user.read();
  await database.users.readAll().fetchAll();
  await user.replace({ id: 'u1' });
  const { permission } = await user.permissions.create({
    id: 'p1',
    permissionMode: PermissionMode.Read,
    resource: container.url,
  });
  await permission.read();
  await user.permissions.readAll().fetchAll();
  await permission.replace({ id: 'p1', permissionMode: PermissionMode.All, resource: container.url });
  await permission.delete();
  await user.delete();

  const scripts = container.scripts;
  const { storedProcedure } = await scripts.storedProcedures.create({
    id: 'sp1',
    body: 'function () { getContext().getResponse().setBody(1); }',
  });
  await storedProcedure.read();
  await scripts.storedProcedures.readAll().fetchAll();
  await storedProcedure.replace({ id: 'sp1', body: 'function () { getContext().getResponse().setBody(2); }' });
  await storedProcedure.execute('a');
  await storedProcedure.delete();
  const pre = {
    id: 't1',
    body: 'function () {}',
    triggerOperation: TriggerOperation.All,
    triggerType: TriggerType.Pre,
  };
  const { trigger } = await scripts.triggers.create(pre);
  await trigger.read();
  await scripts.triggers.readAll().fetchAll();
  await trigger.replace(pre);
  await trigger.delete();
  const { userDefinedFunction } = await scripts.userDefinedFunctions.create({
    id: 'f1',
    body: 'function (x) { return x; }',
  });
  await userDefinedFunction.read();
  await scripts.userDefinedFunctions.readAll().fetchAll();
  await userDefinedFunction.replace({ id: 'f1', body: 'function (x) { return x + 1; }' });
  await userDefinedFunction.delete();

  const keys = `/dbs/${database.id}/clientencryptionkeys`;
  const key = {
    id: 'cek1',
    encryptionAlgorithm: 'AEAD_AES_256_CBC_HMAC_SHA256',
    wrappedDataEncryptionKey: Buffer.from('wrapped').toString('base64'),
    keyWrapMetadata: { type: 'local', name: 'k1', value: 'path1', algorithm: 'RSA-OAEP' },
  };
  await raw('POST', keys, key);
  await raw('GET', `${keys}/cek1`);
  await raw('GET', keys);
  await raw('PUT', `${keys}/cek1`, { ...key, wrappedDataEncryptionKey: Buffer.from('rewrapped').toString('base64') });
  await database.delete();
}

describe('request charges on every route', () => {
  it('answers a positive x-ms-request-charge to every successful request of every operation kind', async () => {
    // Act
    await walkAccountDatabasesAndContainers();
    await walkItems();
    await walkUsersPermissionsScriptsAndKeys();

    // Assess: every kind the router knows was served (Unknown is the refusal of what it does not serve) ...
    const counted = emulator.counters();
    const kinds = Object.values(OperationKind).filter((k) => k !== OperationKind.Unknown);
    expect(kinds.filter((k) => (counted[k] ?? 0) === 0)).toEqual([]);
    // ... and no successful answer charged nothing.
    const succeeded = answers.filter((a) => a.status > 0 && a.status < 400);
    expect(succeeded.length).toBeGreaterThan(kinds.length);
    expect(succeeded.filter((a) => !(a.charge > 0))).toEqual([]);
  });

  it('charges nothing for the emulator’s own /_emulator routes', async () => {
    const response = await fetch(new URL('/_emulator/counters', emulator.endpoint));
    expect(response.status).toBe(200);
    expect(Number(response.headers.get('x-ms-request-charge'))).toBe(0);
  });
});
