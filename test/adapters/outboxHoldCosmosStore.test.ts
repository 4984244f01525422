import { CosmosClient, type Container } from '@azure/cosmos';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CosmosOutboxHoldStore } from '../../src/adapters/outboxHoldCosmosStore.js';
import { outboxHoldId, type OutboxHold } from '../../src/core/index.js';
import { start, type CosmosEmulator } from '../../emulators/cosmos/index.js';

let emulator: CosmosEmulator;
let client: CosmosClient;
let container: Container;

beforeAll(async () => {
  emulator = await start({ port: 0 });
  client = new CosmosClient({ endpoint: emulator.endpoint, key: emulator.key, connectionPolicy: { enableEndpointDiscovery: false } });
  const { database } = await client.databases.createIfNotExists({ id: 'convoy' });
  ({ container } = await database.containers.createIfNotExists({ id: 'orders', partitionKey: { paths: ['/orderId'] } }));
});

afterAll(async () => {
  client?.dispose();
  await emulator?.close();
});

const hold = (orderId: string): OutboxHold => ({
  id: outboxHoldId(orderId),
  docType: 'outbox-hold',
  orderId,
  failedTargets: ['webhook'],
  records: [],
  lastError: 'webhook answered HTTP 503',
  heldAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

describe('CosmosOutboxHoldStore on the Cosmos emulator', () => {
  it('keeps the plain id for an ordinary orderId', () => {
    expect(outboxHoldId('o-1.a_b')).toBe('outbox-hold:o-1.a_b');
    expect(outboxHoldId('o%2F')).toBe('outbox-hold:o%2F');
  });

  // Service Bus session ids allow any character; Cosmos DB ids refuse / \ ? #.
  it.each(['o/1', 'o\\2', 'o?3', 'o#4', 'a/b\\c?d#e', 'o%2F'])('creates, reads, replaces, lists and deletes the hold of order %j', async (orderId) => {
    const store = new CosmosOutboxHoldStore(container);
    const etag = await store.create(hold(orderId));
    expect(etag).not.toBe('changed');
    expect(await store.create(hold(orderId))).toBe('changed');

    const read = await store.read(orderId);
    expect(read?.doc).toEqual(hold(orderId));
    const replaced = await store.replace({ ...hold(orderId), lastError: 'again' }, read!.etag);
    expect(replaced).not.toMatch(/^(changed|missing)$/);
    expect(await store.replace(hold(orderId), read!.etag)).toBe('changed');
    expect((await store.list({ orderId })).map((h) => [h.orderId, h.lastError])).toEqual([[orderId, 'again']]);

    expect(await store.delete(orderId, replaced)).toBe('deleted');
    expect(await store.read(orderId)).toBeUndefined();
  });

  it('tells the holds of two orders apart even when their encoded ids are equal', async () => {
    const store = new CosmosOutboxHoldStore(container);
    for (const orderId of ['x/1', 'x%2F1']) await store.create(hold(orderId));
    expect(outboxHoldId('x/1')).toBe(outboxHoldId('x%2F1'));
    expect((await store.read('x/1'))?.doc.orderId).toBe('x/1');
    expect((await store.read('x%2F1'))?.doc.orderId).toBe('x%2F1');
  });
});
