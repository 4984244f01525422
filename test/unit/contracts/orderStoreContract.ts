import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ORDER_DOCUMENT_ID,
  appliedEntryId,
  inboxRecord,
  initialOrderState,
  parkedEntryId,
  type AppliedEntryDocument,
  type OrderDocument,
  type OrderStore,
  type ParkedEntryDocument,
} from '../../../src/core/index.js';

/** An order document with nothing applied. */
function orderDoc(orderId: string, lastSequence = 0): OrderDocument {
  return {
    id: ORDER_DOCUMENT_ID,
    docType: 'order',
    orderId,
    lastSequence,
    state: initialOrderState(),
    parked: [],
    rejected: [],
    updatedAt: '2025-01-01T00:00:00.000Z',
  };
}

function inbox(orderId: string, entryId: string, requestHash = 'a'.repeat(64)) {
  return inboxRecord({ consumer: 'order-processor', orderId, entryId, requestHash, sequence: 1, status: 'applied', now: '2025-01-01T00:00:00.000Z', ttlSeconds: 3600 });
}

function parked(orderId: string, sequence: number): ParkedEntryDocument {
  const entry = { entryId: `e-${sequence}`, orderId, sequence, type: 'OrderDeleted' as const, data: {} };
  return { id: parkedEntryId(sequence), docType: 'parked', orderId, sequence, entryId: entry.entryId, requestHash: 'b'.repeat(64), entry, correlationId: 'L-1', parkedAt: '2025-01-01T00:00:00.000Z' };
}

function applied(orderId: string, entryId: string): AppliedEntryDocument {
  return { id: appliedEntryId(entryId), docType: 'applied', orderId, entryId, sequence: 1, requestHash: 'a'.repeat(64), appliedAt: '2025-01-01T00:00:00.000Z' };
}

/**
 * The behaviour every `OrderStore` adapter must show (Cosmos DB transactional batch semantics). `makeStore` is
 * called once; each test uses its own partition, so a shared container is fine.
 */
export function describeOrderStoreContract(name: string, makeStore: () => OrderStore | Promise<OrderStore>): void {
  describe(`OrderStore contract: ${name}`, () => {
    let store: OrderStore;
    const newOrderId = () => `contract-${randomUUID()}`;

    beforeAll(async () => {
      store = await makeStore();
    });

    it('reads nothing for an order that does not exist', async () => {
      // Prepare
      const orderId = newOrderId();
      // Act
      const [order, inboxRead, parkedRead, appliedRead] = await Promise.all([
        store.readOrder(orderId),
        store.readInbox(orderId, 'inbox:order-processor:none'),
        store.readParked(orderId, parkedEntryId(7)),
        store.readApplied(orderId, appliedEntryId('none')),
      ]);
      // Assess
      expect([order, inboxRead, parkedRead, appliedRead]).toEqual([undefined, undefined, undefined, undefined]);
    });

    it('creates several documents in one commit and reads each back with the ETag the commit returned', async () => {
      // Prepare
      const orderId = newOrderId();
      const docs = [inbox(orderId, 'e-1'), orderDoc(orderId), parked(orderId, 3), applied(orderId, 'e-1')];
      // Act
      const result = await store.commit(orderId, docs.map((doc) => ({ kind: 'create' as const, doc })));
      // Assess
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.etags).toHaveLength(4);
      const order = await store.readOrder(orderId);
      const inboxRead = await store.readInbox(orderId, docs[0]!.id);
      const parkedRead = await store.readParked(orderId, parkedEntryId(3));
      const appliedRead = await store.readApplied(orderId, appliedEntryId('e-1'));
      expect(order?.doc).toMatchObject(orderDoc(orderId));
      expect(inboxRead?.doc).toMatchObject(docs[0]!);
      expect(parkedRead?.doc).toMatchObject(docs[2]!);
      expect(appliedRead?.doc).toEqual(docs[3]);
      expect([inboxRead?.etag, order?.etag, parkedRead?.etag, appliedRead?.etag]).toEqual(result.etags);
    });

    it('fails a create of an existing id with 409 and writes nothing of the batch', async () => {
      // Prepare
      const orderId = newOrderId();
      await store.commit(orderId, [{ kind: 'create', doc: inbox(orderId, 'e-1') }]);
      // Act
      const result = await store.commit(orderId, [
        { kind: 'create', doc: orderDoc(orderId) },
        { kind: 'create', doc: inbox(orderId, 'e-1', 'c'.repeat(64)) },
      ]);
      // Assess
      expect(result).toEqual({ ok: false, failedIndex: 1, status: 409 });
      expect(await store.readOrder(orderId)).toBeUndefined();
      expect((await store.readInbox(orderId, inbox(orderId, 'e-1').id))?.doc.requestHash).toBe('a'.repeat(64));
    });

    it('replaces under a matching ETag, gives a new ETag, and refuses the old one with 412', async () => {
      // Prepare
      const orderId = newOrderId();
      await store.commit(orderId, [{ kind: 'create', doc: orderDoc(orderId) }]);
      const first = (await store.readOrder(orderId))!;
      // Act
      const replaced = await store.commit(orderId, [{ kind: 'replace', doc: orderDoc(orderId, 1), ifMatch: first.etag }]);
      const stale = await store.commit(orderId, [
        { kind: 'create', doc: inbox(orderId, 'e-2') },
        { kind: 'replace', doc: orderDoc(orderId, 2), ifMatch: first.etag },
      ]);
      // Assess
      expect(replaced.ok).toBe(true);
      const current = (await store.readOrder(orderId))!;
      expect(replaced.ok && replaced.etags[0]).toBe(current.etag);
      expect(current.etag).not.toBe(first.etag);
      expect(current.doc.lastSequence).toBe(1);
      expect(stale).toEqual({ ok: false, failedIndex: 1, status: 412 });
      expect(await store.readInbox(orderId, inbox(orderId, 'e-2').id)).toBeUndefined();
    });

    it('fails a replace or a delete of a missing document with 404', async () => {
      // Prepare
      const orderId = newOrderId();
      // Act
      const replace = await store.commit(orderId, [{ kind: 'replace', doc: orderDoc(orderId) }]);
      const remove = await store.commit(orderId, [{ kind: 'delete', id: parkedEntryId(1) }]);
      // Assess
      expect(replace).toEqual({ ok: false, failedIndex: 0, status: 404 });
      expect(remove).toEqual({ ok: false, failedIndex: 0, status: 404 });
    });

    it('deletes a document, refusing a stale ETag with 412', async () => {
      // Prepare
      const orderId = newOrderId();
      const created = await store.commit(orderId, [{ kind: 'create', doc: parked(orderId, 2) }]);
      await store.commit(orderId, [{ kind: 'upsert', doc: parked(orderId, 2) }]);
      // Act
      const stale = await store.commit(orderId, [{ kind: 'delete', id: parkedEntryId(2), ifMatch: created.ok ? created.etags[0] : 'x' }]);
      const deleted = await store.commit(orderId, [{ kind: 'delete', id: parkedEntryId(2) }]);
      // Assess
      expect(stale).toEqual({ ok: false, failedIndex: 0, status: 412 });
      expect(deleted).toEqual({ ok: true, etags: [undefined] });
      expect(await store.readParked(orderId, parkedEntryId(2))).toBeUndefined();
    });

    it('upserts: creates when missing and replaces when present', async () => {
      // Prepare
      const orderId = newOrderId();
      const record = inbox(orderId, 'e-9');
      // Act
      await store.commit(orderId, [{ kind: 'upsert', doc: record }]);
      await store.commit(orderId, [{ kind: 'upsert', doc: { ...record, status: 'parked' } }]);
      // Assess
      expect((await store.readInbox(orderId, record.id))?.doc.status).toBe('parked');
    });

    it('keeps partitions apart: the same id in two orders is two documents', async () => {
      // Prepare
      const a = newOrderId();
      const b = newOrderId();
      await store.commit(a, [{ kind: 'create', doc: orderDoc(a, 4) }]);
      // Act
      const result = await store.commit(b, [{ kind: 'create', doc: orderDoc(b, 7) }]);
      // Assess
      expect(result.ok).toBe(true);
      expect((await store.readOrder(a))?.doc.lastSequence).toBe(4);
      expect((await store.readOrder(b))?.doc.lastSequence).toBe(7);
    });

    it('does not let a caller change stored state by mutating what it wrote or read', async () => {
      // Prepare
      const orderId = newOrderId();
      const doc = orderDoc(orderId);
      await store.commit(orderId, [{ kind: 'create', doc }]);
      // Act
      doc.lastSequence = 99;
      const read = (await store.readOrder(orderId))!;
      read.doc.lastSequence = 42;
      // Assess
      expect((await store.readOrder(orderId))?.doc.lastSequence).toBe(0);
    });
  });
}
