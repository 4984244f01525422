import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ORDER_DOCUMENT_ID, entryRecordId, transactionDocumentId } from '../../../src/core/documents/documentIds.js';
import type {
  AppliedEntryRecord,
  ParkedEntryRecord,
  RejectedEntryRecord,
} from '../../../src/core/documents/entryRecord.js';
import type { TransactionDocument } from '../../../src/core/documents/transactionDocument.js';
import { initialOrderState } from '../../../src/core/order/orderState.js';
import { orderCloudEvent } from '../../../src/core/outbox/orderCloudEvent.js';
import type { GapStore, OrderStore } from '../../../src/core/ports/orderStore.js';
import type { OrderDocument } from '../../../src/core/documents/orderDocument.js';

const NOW = '2025-01-01T00:00:00.000Z';

/** An order document with nothing applied, or at `lastSequence`. */
export function orderDoc(orderId: string, lastSequence = 0, more: Partial<OrderDocument> = {}): OrderDocument {
  return {
    id: ORDER_DOCUMENT_ID,
    docType: 'order',
    orderId,
    lastSequence,
    state: initialOrderState(),
    parked: [],
    rejected: [],
    updatedAt: NOW,
    ...more,
  };
}

function fields(orderId: string, entryId: string, sequence: number, requestHash: string) {
  return {
    id: entryRecordId('order-processor', entryId),
    docType: 'entry' as const,
    orderId,
    entryId,
    sequence,
    requestHash,
    correlationId: 'L-1',
  };
}

function parked(orderId: string, sequence: number, entryId = `e-${sequence}`): ParkedEntryRecord {
  const entry = { entryId, orderId, sequence, type: 'OrderDeleted' as const, data: {} };
  return { ...fields(orderId, entryId, sequence, 'b'.repeat(64)), status: 'parked', entry, parkedAt: NOW };
}

function rejected(orderId: string, sequence: number, description = 'x'): RejectedEntryRecord {
  const { entry } = parked(orderId, sequence);
  return {
    ...fields(orderId, entry.entryId, sequence, 'b'.repeat(64)),
    status: 'rejected',
    entry,
    reason: 'InvalidTransition',
    description,
    rejectedAt: NOW,
  };
}

/** An applied entry's record, with its event. */
export function applied(
  orderId: string,
  entryId: string,
  sequence = 1,
  requestHash = 'a'.repeat(64),
): AppliedEntryRecord {
  const order = {
    status: 'open' as const,
    customerId: 'c',
    currency: 'EUR',
    lastSequence: sequence,
    total: 0,
    transactionCount: 0,
  };
  const { event, key } = orderCloudEvent({
    orderId,
    entryId,
    sequence,
    type: 'OrderCreated',
    change: { customerId: 'c', currency: 'EUR' },
    order,
    committedAt: NOW,
    traceparent: undefined,
  });
  return {
    ...fields(orderId, entryId, sequence, requestHash),
    status: 'applied',
    type: 'OrderCreated',
    committedAt: NOW,
    event,
    key,
  };
}

function transaction(orderId: string, transactionId: string, addedSequence: number, amount = 10): TransactionDocument {
  return {
    id: transactionDocumentId(transactionId),
    docType: 'transaction',
    orderId,
    transactionId,
    amount,
    addedSequence,
  };
}

/**
 * The behaviour every `OrderStore` (and `GapStore`) adapter must show, in the domain's words: a write is all or
 * nothing; a key already seen comes back with what was seen; a changed order comes back as such. `makeStore` is
 * called once; each test uses its own partition, so a shared container is fine.
 */
export function describeOrderStoreContract(
  name: string,
  makeStore: () => (OrderStore & GapStore) | Promise<OrderStore & GapStore>,
): void {
  describe(`OrderStore contract: ${name}`, () => {
    let store: OrderStore & GapStore;
    const newOrderId = () => `contract-${randomUUID()}`;

    beforeAll(async () => {
      store = await makeStore();
    });

    it('reads nothing for an order that does not exist', async () => {
      // Prepare
      const orderId = newOrderId();
      // Act
      const reads = await Promise.all([
        store.readOrder(orderId),
        store.readEntry(orderId, entryRecordId('order-processor', 'none')),
        store.readTransaction(orderId, 't-1'),
      ]);
      // Assess
      expect(reads).toEqual([undefined, undefined, undefined]);
    });

    it("commits the three documents of an applied entry and answers the order's and the transaction's new ETags", async () => {
      // Prepare
      const orderId = newOrderId();
      const write = {
        entry: { create: applied(orderId, 'e-1') },
        order: { doc: orderDoc(orderId, 1), etag: undefined },
        transaction: { create: transaction(orderId, 't-1', 1) },
      };
      // Act
      const outcome = await store.commit(orderId, write);
      // Assess
      const order = await store.readOrder(orderId);
      const txn = await store.readTransaction(orderId, 't-1');
      expect(outcome).toEqual({ kind: 'committed', orderEtag: order?.etag, transactionEtag: txn?.etag });
      expect(order?.doc).toMatchObject(orderDoc(orderId, 1));
      expect((await store.readEntry(orderId, write.entry.create.id))?.doc).toEqual(write.entry.create);
    });

    it('answers keySeen with the stored record when the write creates one that exists, and writes nothing', async () => {
      // Prepare
      const orderId = newOrderId();
      await store.commit(orderId, {
        entry: { create: applied(orderId, 'e-1') },
        order: { doc: orderDoc(orderId, 1), etag: undefined },
      });
      const before = (await store.readOrder(orderId))!;
      // Act
      const outcome = await store.commit(orderId, {
        entry: { create: applied(orderId, 'e-1', 2, 'c'.repeat(64)) },
        order: { doc: orderDoc(orderId, 2), etag: before.etag },
        transaction: { create: transaction(orderId, 't-2', 2) },
      });
      // Assess
      expect(outcome.kind).toBe('keySeen');
      expect(outcome.kind === 'keySeen' && outcome.record?.doc).toEqual(applied(orderId, 'e-1'));
      expect((await store.readOrder(orderId))?.etag).toBe(before.etag);
      expect(await store.readTransaction(orderId, 't-2')).toBeUndefined();
    });

    it("replaces an entry's record under the ETag it was read with (parked → rejected → applied), answering orderChanged for a stale one", async () => {
      // Prepare
      const orderId = newOrderId();
      await store.commit(orderId, {
        entry: { create: parked(orderId, 2) },
        order: { doc: orderDoc(orderId), etag: undefined },
      });
      const id = parked(orderId, 2).id;
      const asParked = (await store.readEntry(orderId, id))!;
      let order = (await store.readOrder(orderId))!;
      // Act
      const toRejected = await store.commit(orderId, {
        entry: { replace: { doc: rejected(orderId, 2), etag: asParked.etag } },
        order: { doc: order.doc, etag: order.etag },
      });
      order = (await store.readOrder(orderId))!;
      const stale = await store.commit(orderId, {
        entry: { replace: { doc: applied(orderId, 'e-2', 2), etag: asParked.etag } },
        order: { doc: orderDoc(orderId, 2), etag: order.etag },
      });
      const asRejected = (await store.readEntry(orderId, id))!;
      const toApplied = await store.commit(orderId, {
        entry: { replace: { doc: applied(orderId, 'e-2', 2), etag: asRejected.etag } },
        order: { doc: orderDoc(orderId, 2), etag: order.etag },
      });
      // Assess
      expect(toRejected.kind).toBe('committed');
      expect(asRejected.doc).toEqual(rejected(orderId, 2));
      expect(stale.kind).toBe('orderChanged');
      expect(toApplied.kind).toBe('committed');
      expect((await store.readEntry(orderId, id))?.doc).toEqual(applied(orderId, 'e-2', 2));
      expect((await store.readOrder(orderId))?.doc.lastSequence).toBe(2);
    });

    it('replaces the order under its ETag, and answers orderChanged for a stale ETag or a second create, writing nothing', async () => {
      // Prepare
      const orderId = newOrderId();
      await store.commit(orderId, { order: { doc: orderDoc(orderId), etag: undefined } });
      const first = (await store.readOrder(orderId))!;
      // Act
      const replaced = await store.commit(orderId, { order: { doc: orderDoc(orderId, 1), etag: first.etag } });
      const stale = await store.commit(orderId, {
        entry: { create: applied(orderId, 'e-2', 2) },
        order: { doc: orderDoc(orderId, 2), etag: first.etag },
      });
      const again = await store.commit(orderId, { order: { doc: orderDoc(orderId, 3), etag: undefined } });
      // Assess
      const current = (await store.readOrder(orderId))!;
      expect(replaced).toEqual({ kind: 'committed', orderEtag: current.etag });
      expect(current.etag).not.toBe(first.etag);
      expect(current.doc.lastSequence).toBe(1);
      expect(stale.kind).toBe('orderChanged');
      expect(again.kind).toBe('orderChanged');
      expect(await store.readEntry(orderId, applied(orderId, 'e-2').id)).toBeUndefined();
    });

    it('keeps partitions apart: the same id in two orders is two documents', async () => {
      // Prepare
      const a = newOrderId();
      const b = newOrderId();
      await store.commit(a, { order: { doc: orderDoc(a, 4), etag: undefined } });
      // Act
      const outcome = await store.commit(b, { order: { doc: orderDoc(b, 7), etag: undefined } });
      // Assess
      expect(outcome.kind).toBe('committed');
      expect((await store.readOrder(a))?.doc.lastSequence).toBe(4);
      expect((await store.readOrder(b))?.doc.lastSequence).toBe(7);
    });

    it('does not let a caller change stored state by mutating what it wrote or read', async () => {
      // Prepare
      const orderId = newOrderId();
      const doc = orderDoc(orderId);
      await store.commit(orderId, { order: { doc, etag: undefined } });
      // Act
      doc.lastSequence = 99;
      const read = (await store.readOrder(orderId))!;
      read.doc.lastSequence = 42;
      // Assess
      expect((await store.readOrder(orderId))?.doc.lastSequence).toBe(0);
    });

    it("lists the orders waiting (parked entries or an owed alert) and marks a gap alert under the parked entry's ETag", async () => {
      // Prepare
      const waiting = newOrderId();
      const owed = newOrderId();
      const idle = newOrderId();
      await store.commit(waiting, {
        entry: { create: parked(waiting, 3) },
        order: {
          doc: orderDoc(waiting, 1, {
            parked: [{ sequence: 3, entryId: 'e-3', requestHash: 'b'.repeat(64), parkedAt: NOW }],
          }),
          etag: undefined,
        },
      });
      const rejection = {
        sequence: 2,
        entryId: 'e-2',
        requestHash: 'c'.repeat(64),
        reason: 'InvalidTransition' as const,
        rejectedAt: NOW,
        alerted: false,
      };
      await store.commit(owed, { order: { doc: orderDoc(owed, 1, { rejected: [rejection] }), etag: undefined } });
      await store.commit(idle, { order: { doc: orderDoc(idle, 1), etag: undefined } });
      const read = (await store.readEntry(waiting, parked(waiting, 3).id))!;
      const oldest = { doc: read.doc as ParkedEntryRecord, etag: read.etag };
      const mark = { alertedAt: NOW, missingSequence: 2 };
      // Act
      const orders = (await store.ordersWaiting()).map((o) => o.orderId);
      const marked = await store.markGapAlert(oldest, mark);
      const stale = await store.markGapAlert(oldest, mark);
      // Assess
      expect(orders).toEqual(expect.arrayContaining([waiting, owed]));
      expect(orders).not.toContain(idle);
      expect(marked).toBe('marked');
      expect(stale).toBe('changed');
      expect((await store.readEntry(waiting, parked(waiting, 3).id))?.doc).toEqual({
        ...parked(waiting, 3),
        gapAlert: mark,
      });
    });

    it("creates a transaction after the order, and answers transactionExists for its id again once the order's ETag held, writing nothing", async () => {
      // Prepare
      const orderId = newOrderId();
      await store.commit(orderId, {
        order: { doc: orderDoc(orderId, 1), etag: undefined },
        transaction: { create: transaction(orderId, 't/1 €', 1) },
      });
      const before = (await store.readOrder(orderId))!;
      // Act
      const again = await store.commit(orderId, {
        entry: { create: applied(orderId, 'e-2', 2) },
        order: { doc: orderDoc(orderId, 2), etag: before.etag },
        transaction: { create: transaction(orderId, 't/1 €', 2) },
      });
      const stale = await store.commit(orderId, {
        order: { doc: orderDoc(orderId, 2), etag: '"stale"' },
        transaction: { create: transaction(orderId, 't/1 €', 2) },
      });
      // Assess
      expect(again).toEqual({ kind: 'transactionExists' });
      expect(stale.kind).toBe('orderChanged');
      expect((await store.readOrder(orderId))?.etag).toBe(before.etag);
      expect(await store.readEntry(orderId, applied(orderId, 'e-2').id)).toBeUndefined();
      expect((await store.readTransaction(orderId, 't/1 €'))?.doc).toEqual(transaction(orderId, 't/1 €', 1));
    });

    it('replaces a transaction under the ETag it was read with (or the one its commit answered), and answers orderChanged for a stale one or a missing one', async () => {
      // Prepare
      const orderId = newOrderId();
      const created = await store.commit(orderId, {
        order: { doc: orderDoc(orderId, 1), etag: undefined },
        transaction: { create: transaction(orderId, 't-1', 1) },
      });
      const read = (await store.readTransaction(orderId, 't-1'))!;
      const order = (await store.readOrder(orderId))!;
      // Act
      const replaced = await store.commit(orderId, {
        order: { doc: orderDoc(orderId, 2), etag: order.etag },
        transaction: { replace: { doc: { ...read.doc, amount: 7 }, etag: read.etag } },
      });
      const afterwards = (await store.readOrder(orderId))!;
      const stale = await store.commit(orderId, {
        order: { doc: orderDoc(orderId, 3), etag: afterwards.etag },
        transaction: { replace: { doc: { ...read.doc, amount: 8 }, etag: read.etag } },
      });
      const missing = await store.commit(orderId, {
        order: { doc: orderDoc(orderId, 3), etag: afterwards.etag },
        transaction: { replace: { doc: transaction(orderId, 't-none', 1), etag: read.etag } },
      });
      // Assess
      expect(created).toEqual({ kind: 'committed', orderEtag: order.etag, transactionEtag: read.etag });
      const current = (await store.readTransaction(orderId, 't-1'))!;
      expect(replaced).toEqual({ kind: 'committed', orderEtag: afterwards.etag, transactionEtag: current.etag });
      expect(current.etag).not.toBe(read.etag);
      expect([stale.kind, missing.kind]).toEqual(['orderChanged', 'orderChanged']);
      expect((await store.readTransaction(orderId, 't-1'))?.doc.amount).toBe(7);
      expect((await store.readOrder(orderId))?.etag).toBe(afterwards.etag);
    });

    it('reads a transaction by its id only when the stored one is that id, and lists them by addedSequence', async () => {
      // Prepare: 't-b' stored at the id of 't-a' stands for two ids sharing their hash prefix
      const orderId = newOrderId();
      const other = { ...transaction(orderId, 't-b', 3), id: transactionDocumentId('t-a') };
      await store.commit(orderId, {
        order: { doc: orderDoc(orderId, 1), etag: undefined },
        transaction: { create: other },
      });
      const order = (await store.readOrder(orderId))!;
      await store.commit(orderId, {
        order: { doc: orderDoc(orderId, 2), etag: order.etag },
        transaction: { create: transaction(orderId, 't-c', 2) },
      });
      // Act
      const read = await store.readTransaction(orderId, 't-a');
      const listed = await store.listTransactions(orderId);
      // Assess
      expect(read).toBeUndefined();
      expect(listed.map((t) => [t.transactionId, t.addedSequence])).toEqual([
        ['t-c', 2],
        ['t-b', 3],
      ]);
      expect(await store.listTransactions(newOrderId())).toEqual([]);
    });

    it('refuses an order document written by an earlier version (no transactionCount) with StoredFormatUnknown naming --data-dir', async () => {
      // Prepare
      const orderId = newOrderId();
      const { transactionCount: _dropped, ...earlierState } = initialOrderState();
      await store.commit(orderId, {
        order: { doc: { ...orderDoc(orderId, 1), state: earlierState as OrderDocument['state'] }, etag: undefined },
      });
      // Act + Assess
      await expect(store.readOrder(orderId)).rejects.toMatchObject({
        code: 'StoredFormatUnknown',
        message: expect.stringContaining('--data-dir'),
      });
    });
  });
}
