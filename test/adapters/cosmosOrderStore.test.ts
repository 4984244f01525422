import type { Container, CosmosClient } from '@azure/cosmos';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCosmosClient } from '../../src/adapters/azureClients.js';
import { CosmosOrderStore, toStoreError } from '../../src/adapters/cosmosOrderStore.js';
import type { OrderWrite } from '../../src/core/ports/orderStore.js';
import { start } from '@ledger-convoy/cosmos-emulator';
import type { CosmosEmulator } from '@ledger-convoy/cosmos-emulator';
import { applied, describeOrderStoreContract, orderDoc } from '../unit/contracts/orderStoreContract.js';

let emulator: CosmosEmulator;
let client: CosmosClient;
let container: Container;

beforeAll(async () => {
  emulator = await start({ port: 0 });
  // The app's own client: no SDK retries, so each fault reaches the store.
  client = createCosmosClient({ CosmosConnection: `AccountEndpoint=${emulator.endpoint};AccountKey=${emulator.key}` });
  const { database } = await client.databases.createIfNotExists({ id: 'convoy' });
  ({ container } = await database.containers.createIfNotExists({
    id: 'orders',
    partitionKey: { paths: ['/orderId'] },
    defaultTtl: -1,
  }));
});

afterAll(async () => {
  client?.dispose();
  await emulator?.close();
});

describeOrderStoreContract('Cosmos DB (emulator)', () => new CosmosOrderStore(container));

describe('CosmosOrderStore on the Cosmos emulator', () => {
  const record = (orderId: string, entryId = 'e-1') => applied(orderId, entryId);
  const write = (orderId: string, entryOf = orderId): OrderWrite => ({
    entry: { create: record(entryOf) },
    order: { doc: orderDoc(orderId), etag: undefined },
  });
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
    const outcome = await store.commit(orderId, write(orderId));
    // Assess
    expect(outcome.kind).toBe('committed');
    const { total, batch, requestUnits } = emulator.counters();
    expect({ total, batch }).toEqual({ total: 1, batch: 1 });
    expect(requestUnits).toEqual({ total: requestUnits.batch, batch: expect.any(Number) });
  });

  it('reads documents without Cosmos system properties', async () => {
    // Prepare
    const orderId = `o-${randomUUID()}`;
    await store.commit(orderId, write(orderId));
    // Act
    const read = await store.readEntry(orderId, record(orderId).id);
    // Assess
    expect(read?.doc).toEqual(record(orderId));
    expect(read?.etag).toMatch(/^".+"$/);
  });

  it.each([429, 449, 503] as const)('answers transient for a %i on a batch, having written nothing', async (status) => {
    // Prepare
    const orderId = `o-${randomUUID()}`;
    emulator.faults.add({ operation: 'batch', status });
    // Act
    const outcome = await store.commit(orderId, write(orderId));
    // Assess: only a 429 is throttling, which rule 8 waits out however long
    expect(outcome.kind).toBe('transient');
    expect(outcome.kind === 'transient' && outcome.throttled === true).toBe(status === 429);
    expect(await store.readEntry(orderId, record(orderId).id)).toBeUndefined();
  });

  it('answers unknown for a 408 on a batch: the server may have committed before timing out', async () => {
    const orderId = `o-${randomUUID()}`;
    emulator.faults.add({ operation: 'batch', status: 408 });
    expect((await store.commit(orderId, write(orderId))).kind).toBe('unknown');
  });

  it('throws StoreFailed for a 500 on a batch', async () => {
    const orderId = `o-${randomUUID()}`;
    emulator.faults.add({ operation: 'batch', status: 500 });
    await expect(store.commit(orderId, write(orderId))).rejects.toMatchObject({ code: 'StoreFailed', status: 500 });
  });

  it('answers unknown for a committed batch whose reply was lost; the retry meets the key as seen', async () => {
    // Prepare
    const orderId = `o-${randomUUID()}`;
    emulator.faults.add({ mode: 'commit-then-fail', operation: 'batch' });
    // Act
    const first = await store.commit(orderId, write(orderId));
    const retried = await store.commit(orderId, write(orderId));
    // Assess
    expect(first.kind).toBe('unknown');
    expect(retried.kind === 'keySeen' && retried.record?.doc).toEqual(record(orderId));
  });

  it('maps a throttled point read to StoreTransient with the retry hint', async () => {
    const orderId = `o-${randomUUID()}`;
    emulator.faults.add({ operation: 'read', status: 429, retryAfterMs: 40 });
    await expect(store.readOrder(orderId)).rejects.toMatchObject({
      code: 'StoreTransient',
      status: 429,
      retryAfterMs: 40,
      throttled: true,
    });
  });

  it('throws StoreFailed for a document of another partition, which Cosmos DB refuses', async () => {
    const orderId = `o-${randomUUID()}`;
    await expect(store.commit(orderId, write(orderId, 'another-order'))).rejects.toMatchObject({ code: 'StoreFailed' });
    expect(await store.readOrder(orderId)).toBeUndefined();
  });
});

describe('Cosmos failure classification without a server', () => {
  it('treats a refused connection as transient and a reset after sending as an unknown write', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const reset = new Error('Batch request error: read ECONNRESET');
    expect(toStoreError(refused, 'commit', 'a batch').code).toBe('StoreTransient');
    expect(toStoreError(reset, 'commit', 'a batch')).toMatchObject({
      code: 'StoreOutcomeUnknown',
      message: 'Cosmos DB commit of a batch failed (ECONNRESET): Batch request error: read ECONNRESET',
    });
    expect(toStoreError(reset, 'read', 'a document').code).toBe('StoreTransient');
  });

  it('treats an unclassifiable error as StoreFailed', () => {
    expect(toStoreError(new Error('Batch request error: something odd'), 'commit', 'a batch').code).toBe('StoreFailed');
  });
});
