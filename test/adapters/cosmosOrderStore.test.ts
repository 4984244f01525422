import { CosmosClient } from '@azure/cosmos';
import type { Container } from '@azure/cosmos';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { orderStoreClientOptions } from '../../src/adapters/cosmosClientOptions.js';
import { describeCosmosFailure, storeErrorCodeOf } from '../../src/adapters/cosmosErrors.js';
import { CosmosOrderStore } from '../../src/adapters/cosmosOrderStore.js';
import { inboxRecord, type StoreOperation } from '../../src/core/index.js';
import { start } from '../../emulators/cosmos/index.js';
import type { CosmosEmulator } from '../../emulators/cosmos/index.js';
import { describeOrderStoreContract } from '../unit/contracts/orderStoreContract.js';

let emulator: CosmosEmulator;
let client: CosmosClient;
let container: Container;

beforeAll(async () => {
  emulator = await start({ port: 0 });
  client = new CosmosClient({ endpoint: emulator.endpoint, key: emulator.key, ...orderStoreClientOptions({ endpointDiscovery: false, requestTimeoutMs: 5_000 }) });
  const { database } = await client.databases.createIfNotExists({ id: 'convoy' });
  ({ container } = await database.containers.createIfNotExists({ id: 'orders', partitionKey: { paths: ['/orderId'] }, defaultTtl: -1 }));
});

afterAll(async () => {
  client?.dispose();
  await emulator?.close();
});

describeOrderStoreContract('Cosmos DB (emulator)', () => new CosmosOrderStore(container));

describe('CosmosOrderStore on the Cosmos emulator', () => {
  const record = (orderId: string, entryId = 'e-1') =>
    inboxRecord({ consumer: 'order-processor', orderId, entryId, requestHash: 'a'.repeat(64), sequence: 1, status: 'applied', now: '2025-01-01T00:00:00.000Z', ttlSeconds: 3600 });
  const create = (orderId: string, entryId?: string): StoreOperation[] => [{ kind: 'create', doc: record(orderId, entryId) }];
  let store: CosmosOrderStore;

  beforeEach(() => {
    emulator.faults.clear();
    emulator.resetCounters();
    store = new CosmosOrderStore(container);
  });

  it('commits in exactly one batch request', async () => {
    // Prepare
    const orderId = `o-${randomUUID()}`;
    // Act
    const result = await store.commit(orderId, [...create(orderId, 'e-1'), ...create(orderId, 'e-2')]);
    // Assess
    expect(result.ok).toBe(true);
    expect(emulator.counters()).toEqual({ total: 1, batch: 1 });
  });

  it('reads documents without Cosmos system properties', async () => {
    // Prepare
    const orderId = `o-${randomUUID()}`;
    await store.commit(orderId, create(orderId));
    // Act
    const read = await store.readInbox(orderId, record(orderId).id);
    // Assess
    expect(read?.doc).toEqual(record(orderId));
    expect(read?.etag).toMatch(/^".+"$/);
  });

  it('maps a 429 on a batch to StoreTransient with the status, and writes nothing', async () => {
    // Prepare
    const orderId = `o-${randomUUID()}`;
    emulator.faults.add({ operation: 'batch', status: 429 });
    // Act
    const act = store.commit(orderId, create(orderId));
    // Assess
    await expect(act).rejects.toMatchObject({ name: 'StoreError', code: 'StoreTransient', status: 429 });
    expect(await store.readInbox(orderId, record(orderId).id)).toBeUndefined();
  });

  it.each([449, 503] as const)('maps a %i on a batch to StoreTransient', async (status) => {
    const orderId = `o-${randomUUID()}`;
    emulator.faults.add({ operation: 'batch', status });
    await expect(store.commit(orderId, create(orderId))).rejects.toMatchObject({ code: 'StoreTransient', status });
  });

  it('maps a 408 on a batch to StoreOutcomeUnknown: the server may have committed before timing out', async () => {
    const orderId = `o-${randomUUID()}`;
    emulator.faults.add({ operation: 'batch', status: 408 });
    await expect(store.commit(orderId, create(orderId))).rejects.toMatchObject({ code: 'StoreOutcomeUnknown', status: 408 });
  });

  it('maps a 500 on a batch to StoreFailed', async () => {
    const orderId = `o-${randomUUID()}`;
    emulator.faults.add({ operation: 'batch', status: 500 });
    await expect(store.commit(orderId, create(orderId))).rejects.toMatchObject({ code: 'StoreFailed', status: 500 });
  });

  it('maps a committed batch whose reply was lost to StoreOutcomeUnknown; the retry meets the 409', async () => {
    // Prepare
    const orderId = `o-${randomUUID()}`;
    emulator.faults.add({ mode: 'commit-then-fail', operation: 'batch' });
    // Act
    const first = store.commit(orderId, create(orderId));
    // Assess
    await expect(first).rejects.toMatchObject({ code: 'StoreOutcomeUnknown' });
    expect(await store.readInbox(orderId, record(orderId).id)).toBeDefined();
    expect(await store.commit(orderId, create(orderId))).toEqual({ ok: false, failedIndex: 0, status: 409 });
  });

  it('maps a throttled point read to StoreTransient with the retry hint', async () => {
    const orderId = `o-${randomUUID()}`;
    emulator.faults.add({ operation: 'read', status: 429, retryAfterMs: 40 });
    await expect(store.readOrder(orderId)).rejects.toMatchObject({ code: 'StoreTransient', status: 429, retryAfterMs: 40 });
  });

  it('refuses empty and oversized batches and foreign partitions as StoreFailed without a request', async () => {
    // Prepare
    const orderId = `o-${randomUUID()}`;
    const many = Array.from({ length: 101 }, (_, i) => create(orderId, `e-${i}`)[0]!);
    // Act
    const empty = store.commit(orderId, []);
    const oversized = store.commit(orderId, many);
    const foreign = store.commit(orderId, create('another-order'));
    // Assess
    await expect(empty).rejects.toMatchObject({ code: 'StoreFailed', status: 400 });
    await expect(oversized).rejects.toMatchObject({ code: 'StoreFailed', status: 400 });
    await expect(foreign).rejects.toMatchObject({ code: 'StoreFailed', status: 400 });
    expect(emulator.counters().total).toBe(0);
  });
});

describe('Cosmos failure classification without a server', () => {
  it('treats a refused connection as transient and a reset after sending as an unknown write', () => {
    const refused = describeCosmosFailure(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }));
    const reset = describeCosmosFailure(new Error('Batch request error: read ECONNRESET'));
    expect(storeErrorCodeOf(refused, 'commit')).toBe('StoreTransient');
    expect(storeErrorCodeOf(reset, 'commit')).toBe('StoreOutcomeUnknown');
    expect(storeErrorCodeOf(reset, 'read')).toBe('StoreTransient');
  });

  it('treats an unclassifiable error as StoreFailed', () => {
    expect(storeErrorCodeOf(describeCosmosFailure(new Error('Batch request error: something odd')), 'commit')).toBe('StoreFailed');
  });
});
