import { CosmosClient, type Container } from '@azure/cosmos';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CosmosOutboxHoldStore } from '../../src/adapters/outboxHoldCosmosStore.js';
import { outboxHoldId, type OutboxHold } from '../../src/core/index.js';
import { appendedHold, heldCopy, newHold } from '../../src/core/outbox/holdMarker.js';
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
/** A held record of `orderId` (entryIds are `[A-Za-z0-9._-]`, whatever the orderId). */
const held = (orderId: string, sequence: number) =>
  heldCopy({ ...outboxRecordOf(orderId, sequence), id: `outbox:e-${sequence}`, entryId: `e-${sequence}` }, ['webhook']);
const hold = (orderId: string): OutboxHold =>
  newHold(orderId, held(orderId, 1), { nowMs: NOW, error: 'webhook answered HTTP 503', nextAttemptMs: NOW + 60_000 });

describe('CosmosOutboxHoldStore on the Cosmos emulator', () => {
  it('keeps the plain id for an ordinary orderId, and a stable one without what an id may not hold for the others', () => {
    expect(outboxHoldId('o-1.a_b')).toBe('outbox-hold:o-1.a_b');
    expect(outboxHoldId('Bestellung ä 1')).toBe('outbox-hold:Bestellung ä 1');
    for (const orderId of ['o/1', 'o\\2', 'o?3', 'o#4', 'o%2F', 'o ', '€'.repeat(127) + '/']) {
      expect(outboxHoldId(orderId)).toMatch(/^outbox-hold:~[0-9a-f]{32}$/);
      expect(outboxHoldId(orderId)).toBe(outboxHoldId(orderId));
    }
  });

  // Service Bus session ids allow any character; a Cosmos DB id addressed by name cannot hold / \ ? # %, nor end in
  // whitespace (the service refuses the first four, decodes a percent escape once more, and drops the whitespace).
  it.each(['o/1', 'o\\2', 'o?3', 'o#4', 'a/b\\c?d#e', 'o%2F', 'o%20', 'o '])(
    'appends to, reads, replaces, lists and deletes the hold of order %j',
    async (orderId) => {
      const store = new CosmosOutboxHoldStore(container);
      const created = await store.append(hold(orderId), undefined, held(orderId, 1));
      expect(created.kind).toBe('written');
      expect(await store.append(hold(orderId), undefined, held(orderId, 2))).toEqual({ kind: 'exists' });
      const read = await store.read(orderId);
      expect(read?.doc).toEqual(hold(orderId));
      expect(
        await store.append(appendedHold(hold(orderId), held(orderId, 1), NOW), read!.etag, held(orderId, 1)),
      ).toEqual({ kind: 'alreadyHeld' });
      const appended = await store.append(
        appendedHold(hold(orderId), held(orderId, 2), NOW),
        read!.etag,
        held(orderId, 2),
      );
      expect(appended.kind).toBe('written');
      expect(
        await store.append(appendedHold(hold(orderId), held(orderId, 3), NOW), read!.etag, held(orderId, 3)),
      ).toEqual({ kind: 'changed' });
      expect((await store.heldRecords(orderId)).map((r) => [r.id, r.sequence, r.record.id])).toEqual([
        ['outbox-held:e-1', 1, 'outbox:e-1'],
        ['outbox-held:e-2', 2, 'outbox:e-2'],
      ]);
      expect(await store.countHeld(orderId)).toBe(2);

      const etag = (appended as { etag: string }).etag;
      const replaced = await store.replace({ ...hold(orderId), lastError: 'again' }, etag);
      expect(replaced).not.toMatch(/^(changed|missing)$/);
      expect(await store.replace(hold(orderId), etag)).toBe('changed');
      expect((await store.list({ orderId })).map((h) => [h.doc.orderId, h.doc.lastError, h.etag])).toEqual([
        [orderId, 'again', replaced],
      ]);

      await store.deleteHeld(orderId, 'outbox-held:e-1');
      await store.deleteHeld(orderId, 'outbox-held:e-1');
      expect(await store.countHeld(orderId)).toBe(1);
      expect(await store.delete(orderId, replaced)).toBe('deleted');
      expect(await store.read(orderId)).toBeUndefined();
      // A conditional replace of a marker that is gone answers 412 (the relay reads it again and finds none).
      expect(
        await store.append(appendedHold(hold(orderId), held(orderId, 4), NOW), replaced, held(orderId, 4)),
      ).toEqual({ kind: 'changed' });
    },
  );

  it('tells apart the holds of two orders whose ids decode alike', async () => {
    const store = new CosmosOutboxHoldStore(container);
    for (const orderId of ['x/1', 'x%2F1']) await store.append(hold(orderId), undefined, held(orderId, 1));
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
      records: [],
    };
    await store.recordDiscard(audit);
    await expect(store.recordDiscard(audit)).rejects.toMatchObject({ status: 409 });
    expect((await container.item(audit.id, 'd-1').read()).resource).toMatchObject({ reason: 'r' });
  });
});
