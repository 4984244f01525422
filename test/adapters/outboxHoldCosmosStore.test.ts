import { CosmosClient, type Container } from '@azure/cosmos';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CosmosOutboxHoldStore } from '../../src/adapters/outboxHoldCosmosStore.js';
import { outboxHoldId, type OutboxHold } from '../../src/core/index.js';
import { joinedHold } from '../../src/core/outbox/holdMarker.js';
import { storedEvent } from '../../src/core/documents/entryRecord.js';
import { outboxRecordOf } from '../outbox/support/relayFakes.js';
import { start, type CosmosEmulator } from '@ledger-convoy/cosmos-emulator';

let emulator: CosmosEmulator;
let client: CosmosClient;
let container: Container;

beforeAll(async () => {
  emulator = await start({ port: 0 });
  client = new CosmosClient({
    endpoint: emulator.endpoint,
    key: emulator.key,
    connectionPolicy: { enableEndpointDiscovery: false },
  });
  const { database } = await client.databases.createIfNotExists({ id: 'convoy' });
  ({ container } = await database.containers.createIfNotExists({
    id: 'orders',
    partitionKey: { paths: ['/orderId'] },
  }));
});

afterAll(async () => {
  client?.dispose();
  await emulator?.close();
});

const NOW = Date.parse('2026-01-01T00:00:00.000Z');
const hold = (orderId: string): OutboxHold =>
  joinedHold(
    orderId,
    undefined,
    { owed: { webhook: 0 }, through: 1, error: 'webhook answered HTTP 503' },
    { nowMs: NOW, nextAttemptMs: NOW + 60_000 },
  );

describe('CosmosOutboxHoldStore on the Cosmos emulator', () => {
  it('keeps the plain id for an ordinary orderId, and a stable one without what an id may not hold for the others', () => {
    expect(outboxHoldId('o-1.a_b')).toBe('outbox-hold:o-1.a_b');
    expect(outboxHoldId('Bestellung ä 1')).toBe('outbox-hold:Bestellung ä 1');
    for (const orderId of ['o/1', 'o\\2', 'o?3', 'o#4', 'o%2F', 'o ', '€'.repeat(127) + '/']) {
      expect(outboxHoldId(orderId)).toMatch(/^outbox-hold:~[0-9a-f]{32}$/);
      expect(outboxHoldId(orderId)).toBe(outboxHoldId(orderId));
    }
  });

  // Service Bus session ids allow any character; a Cosmos DB id addressed by name cannot hold / \\ ? # %, nor end in
  // whitespace (the service refuses the first four, decodes a percent escape once more, and drops the whitespace).
  it.each(['o/1', 'o\\2', 'o?3', 'o#4', 'a/b\\c?d#e', 'o%2F', 'o%20', 'o '])(
    'creates, reads, replaces, lists and ends the hold of order %j, a lost condition an outcome',
    async (orderId) => {
      const store = new CosmosOutboxHoldStore(container);
      const created = await store.write(hold(orderId), undefined);
      expect(created.kind).toBe('written');
      expect(await store.write(hold(orderId), undefined)).toEqual({ kind: 'lost' });
      const read = await store.read(orderId);
      expect(read?.doc).toEqual(hold(orderId));
      const raised = { ...hold(orderId), heldThrough: 4 };
      const replaced = await store.write(raised, read!.etag);
      expect(replaced.kind).toBe('written');
      expect(await store.write(raised, read!.etag)).toEqual({ kind: 'lost' });
      expect((await store.list({ orderId })).map((h) => h.doc.heldThrough)).toEqual([4]);
      expect(await store.end(orderId, read!.etag)).toEqual({ kind: 'lost' });
      expect(await store.end(orderId, (replaced as { etag: string }).etag)).toEqual({ kind: 'written', etag: '' });
      expect(await store.read(orderId)).toBeUndefined();
      // A conditional write of a marker that is gone loses too (the relay reads it again and finds none).
      expect(await store.write(raised, (replaced as { etag: string }).etag)).toEqual({ kind: 'lost' });
      expect(await store.end(orderId, (replaced as { etag: string }).etag)).toEqual({ kind: 'lost' });
    },
  );

  it('reads the stored events behind a cursor: applied entry records only, in sequence order, a page at a time', async () => {
    const store = new CosmosOutboxHoldStore(container);
    const orderId = 's-1';
    // Written out of order, with what else an order's partition holds: its document, a parked entry, a hold.
    for (const sequence of [5, 2, 4, 1, 3, 6]) await container.items.create(outboxRecordOf(orderId, sequence));
    await container.items.create({ id: 'order', docType: 'order', orderId, sequence: 3 });
    await container.items.create({
      id: 'entry:order-processor:p-9',
      docType: 'entry',
      status: 'parked',
      orderId,
      entryId: 'p-9',
      sequence: 9,
    });
    await store.write(hold(orderId), undefined);

    const events = await store.storedEvents(orderId, 1, 5, 100);
    expect(events.map((e) => e.sequence)).toEqual([2, 3, 4, 5]);
    expect(events[0]).toEqual(storedEvent(outboxRecordOf(orderId, 2)));
    expect((await store.storedEvents(orderId, 1, 9, 2)).map((e) => e.sequence)).toEqual([2, 3]);
    expect(await store.storedEvents(orderId, 6, 9, 100)).toEqual([]);
    expect(await store.storedEvents('another order', 0, 9, 100)).toEqual([]);
  });

  it('tells apart the holds of two orders whose ids decode alike', async () => {
    const store = new CosmosOutboxHoldStore(container);
    for (const orderId of ['x/1', 'x%2F1']) await store.write(hold(orderId), undefined);
    expect((await store.read('x/1'))?.doc.orderId).toBe('x/1');
    expect((await store.read('x%2F1'))?.doc.orderId).toBe('x%2F1');
  });

  it('writes a discard audit record in the order, once', async () => {
    const store = new CosmosOutboxHoldStore(container);
    const audit = {
      id: 'outbox-discard:3:1',
      docType: 'outbox-discard' as const,
      orderId: 'd-1',
      reason: 'r',
      by: 'ops',
      discardedAt: new Date(NOW).toISOString(),
      undelivered: [],
    };
    await store.recordDiscard(audit);
    await expect(store.recordDiscard(audit)).rejects.toMatchObject({ status: 409 });
    expect((await container.item(audit.id, 'd-1').read()).resource).toMatchObject({ reason: 'r' });
  });
});
