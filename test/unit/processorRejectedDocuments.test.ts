import { describe, expect, it } from 'vitest';
import { type Entry, type RejectedEntryRecord } from '../../src/core/index.js';
import { entryRecordId } from '../../src/core/documents/documentIds.js';
import { requestHash } from '../../src/core/hash.js';
import type { OrderDocument } from '../../src/core/documents/orderDocument.js';
import type { ParkedEntryRecord } from '../../src/core/documents/entryRecord.js';
import { writeFor } from '../../src/core/processor/orderWrites.js';
import { entriesFor, makeHarness, messageFor, uniqueOrderId, viewOf } from './support/fixtures.js';

const AT = '2025-01-01T00:00:00.000Z';

/** Sequence 3 parked (it amends a transaction that does not exist), then rejected when 2 applies (rule 11). */
async function rejectedAtThree() {
  const h = makeHarness();
  const orderId = uniqueOrderId();
  const e = entriesFor(orderId);
  await h.send(e.created());
  const impossible = e.amended(3, 't-unknown', 5);
  await h.send(messageFor(impossible, { correlationId: 'L-parked' }));
  const { result } = await h.send(e.added(2, 't-2', 2));
  return { h, orderId, e, impossible, result };
}

/** The order document as stored, and its ETag. */
async function orderOf(h: ReturnType<typeof makeHarness>, orderId: string) {
  return (await h.store.readOrder(orderId))!;
}

const recordOf = (orderId: string, entryId: string) => entryRecordId('order-processor', entryId);

describe("order processor, a rejected entry's details are its record (rule 11)", () => {
  it("replaces the parked record with the rejected one in the batch that rejects the entry, and keeps the order's index small", async () => {
    // Prepare
    const orderId = uniqueOrderId();
    const entry = entriesFor(orderId).amended(3, 't-unknown', 5);
    const parked: ParkedEntryRecord = {
      id: recordOf(orderId, entry.entryId),
      docType: 'entry',
      status: 'parked',
      orderId,
      sequence: 3,
      entryId: entry.entryId,
      requestHash: requestHash(entry),
      entry,
      correlationId: 'L-7',
      resubmitCount: 2,
      parkedAt: AT,
    };
    const order: OrderDocument = {
      id: 'order',
      docType: 'order',
      orderId,
      lastSequence: 2,
      state: { status: 'open', customerId: 'c', currency: 'EUR', total: 0, transactionCount: 0 },
      parked: [{ sequence: 3, entryId: entry.entryId, requestHash: parked.requestHash, parkedAt: AT }],
      rejected: [],
      updatedAt: AT,
    };
    // Act
    const write = writeFor(
      {
        kind: 'reject',
        rule: 11,
        deadLetterReason: 'InvalidTransition',
        holds: 3,
        reason: 'Transaction t-unknown does not exist',
      },
      {
        entry,
        hash: parked.requestHash,
        order: { doc: order, etag: '"o"' },
        origin: { correlationId: 'L-7', messageId: undefined, traceparent: undefined },
        record: { doc: parked, etag: '"p"' },
      },
      { now: AT, consumer: 'order-processor' },
    );
    // Assess: one write (one batch) of two documents: the entry's record, replaced under its ETag, and the order
    expect(Object.keys(write ?? {})).toEqual(['entry', 'order']);
    expect(write?.order.doc.rejected).toEqual([
      {
        sequence: 3,
        entryId: entry.entryId,
        requestHash: parked.requestHash,
        reason: 'InvalidTransition',
        rejectedAt: AT,
        resubmitCount: 2,
        alerted: false,
      },
    ]);
    expect(write?.entry).toEqual({
      replace: {
        etag: '"p"',
        doc: {
          id: recordOf(orderId, entry.entryId),
          docType: 'entry',
          status: 'rejected',
          orderId,
          sequence: 3,
          entryId: entry.entryId,
          requestHash: parked.requestHash,
          reason: 'InvalidTransition',
          description: 'Transaction t-unknown does not exist',
          rejectedAt: AT,
          entry,
          correlationId: 'L-7',
          resubmitCount: 2,
        },
      },
    });
  });

  it('keeps in the rejected record the entry as parked, its description and ledger, and alerts with that description', async () => {
    // Act
    const { h, orderId, impossible, result } = await rejectedAtThree();
    // Assess
    expect(result).toMatchObject({ outcome: 'applied', rejected: 1 });
    const details = h.store.documents(orderId).get(recordOf(orderId, impossible.entryId)) as
      RejectedEntryRecord | undefined;
    expect(details).toMatchObject({
      docType: 'entry',
      status: 'rejected',
      sequence: 3,
      entry: impossible,
      correlationId: 'L-parked',
      reason: 'InvalidTransition',
    });
    expect(details?.description).toContain('t-unknown');
    expect(Object.keys((await orderOf(h, orderId)).doc.rejected[0]!).sort()).toEqual([
      'alerted',
      'entryId',
      'reason',
      'rejectedAt',
      'requestHash',
      'sequence',
    ]);
    expect(h.telemetry.alerts).toEqual([
      {
        name: 'ParkedEntryRejected',
        fields: expect.objectContaining({ sequence: 3, description: details?.description }),
      },
    ]);
    expect((await viewOf(h.store, orderId))?.rejected).toEqual([
      { sequence: 3, entryId: impossible.entryId, reason: 'InvalidTransition' },
    ]);
  });

  it('replaces the rejected record with the applied one, and drops the index entry, in the batch that applies the correction', async () => {
    // Prepare
    const { h, orderId, e } = await rejectedAtThree();
    // Act: the operator's correction of 3, same entryId
    const { result } = await h.send(messageFor(e.added(3, 't-3', 3), { messageId: `${orderId}-e3.r1` }));
    // Assess
    expect(result).toMatchObject({ outcome: 'applied', sequence: 3 });
    expect((await orderOf(h, orderId)).doc).toMatchObject({ lastSequence: 3, rejected: [] });
    expect(h.store.documents(orderId).get(recordOf(orderId, `${orderId}-e3`))).toMatchObject({
      status: 'applied',
      sequence: 3,
    });
  });

  it('replaces the record and the index entry when a sequence is rejected again', async () => {
    // Prepare: 3 rejected before, and parked again (another content, the same entryId) with its turn come
    const { h, orderId, e } = await rejectedAtThree();
    const again: Entry = e.amended(3, 't-other', 7);
    const current = (await orderOf(h, orderId)).doc;
    const hash = requestHash(again);
    h.store.put({
      id: recordOf(orderId, again.entryId),
      docType: 'entry',
      status: 'parked',
      orderId,
      sequence: 3,
      entryId: again.entryId,
      requestHash: hash,
      entry: again,
      correlationId: 'L-again',
      parkedAt: AT,
    });
    h.store.put({ ...current, parked: [{ sequence: 3, entryId: again.entryId, requestHash: hash, parkedAt: AT }] });
    // Act
    const report = await h.processor.drain(orderId);
    // Assess
    expect(report).toMatchObject({ rejected: 1, alerted: 1 });
    const order = (await orderOf(h, orderId)).doc;
    expect(order.parked).toEqual([]);
    expect(order.rejected).toMatchObject([{ sequence: 3, requestHash: hash, alerted: true }]);
    expect(h.store.documents(orderId).get(recordOf(orderId, again.entryId))).toMatchObject({
      status: 'rejected',
      entry: again,
      correlationId: 'L-again',
      requestHash: hash,
    });
    expect(h.telemetry.alerts.at(-1)?.fields.description).toContain('t-other');
  });
});
