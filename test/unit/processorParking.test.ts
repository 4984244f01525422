import { describe, expect, it } from 'vitest';
import { resubmission } from '../../src/core/index.js';
import { entriesFor, makeHarness, messageFor, uniqueOrderId, viewOf } from './support/fixtures.js';

describe('order processor, gaps and parking (rules 5, 10, 11)', () => {
  it('parks entries behind a gap, then applies them in order once the gap fills (rule 5)', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    const parked4 = await h.send(e.amended(4, 't-1', 900));
    const parked3 = await h.send(e.added(3, 't-2', 50));
    // Act
    const { result } = await h.send(e.added(2, 't-1', 1000));
    // Assess
    expect([parked4.result.outcome, parked3.result.outcome]).toEqual(['parked', 'parked']);
    expect(result).toMatchObject({ outcome: 'applied', drained: 2, rejected: 0 });
    expect(await viewOf(h.store, orderId)).toMatchObject({ lastSequence: 4, total: 950, parked: [], rejected: [] });
    const docs = h.store.documents(orderId);
    expect([...docs.keys()].filter((id) => id.startsWith('parked:'))).toEqual([]);
    expect(docs.get(`entry:order-processor:${orderId}-e4`)).toMatchObject({ status: 'applied' });
    expect(docs.get(`entry:order-processor:${orderId}-e3`)).toMatchObject({
      event: { data: { order: { lastSequence: 3, total: 1050 } } },
    });
    expect(docs.get(`entry:order-processor:${orderId}-e4`)).toMatchObject({
      event: { data: { order: { lastSequence: 4, total: 950 } } },
    });
    expect(h.settlements.flatMap((s) => s.calls)).toEqual(Array(4).fill({ action: 'complete' }));
  });

  it('shows an order with only parked entries as pending, then drains it when OrderCreated arrives', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.added(3, 't-2', 5));
    await h.send(e.added(2, 't-1', 7));
    const pending = await viewOf(h.store, orderId);
    // Act
    const { result } = await h.send(e.created());
    // Assess
    expect(pending).toEqual({
      orderId,
      status: 'pending',
      customerId: null,
      currency: null,
      lastSequence: 0,
      total: 0,
      transactions: [],
      parked: [
        { sequence: 2, entryId: `${orderId}-e2` },
        { sequence: 3, entryId: `${orderId}-e3` },
      ],
      rejected: [],
    });
    expect(result).toMatchObject({ outcome: 'applied', drained: 2 });
    expect(await viewOf(h.store, orderId)).toMatchObject({ status: 'open', lastSequence: 3, total: 12 });
  });

  describe('an entry already parked', () => {
    async function withParked() {
      const h = makeHarness();
      const orderId = uniqueOrderId();
      const e = entriesFor(orderId);
      await h.send(e.created());
      await h.send(e.added(3, 't-1', 10));
      return { h, orderId, e };
    }

    it('completes a redelivery of it as a duplicate (rule 2)', async () => {
      // Prepare
      const { h, e, orderId } = await withParked();
      // Act
      const { result } = await h.send(e.added(3, 't-1', 10));
      // Assess
      expect(result.outcome).toBe('duplicate');
      expect((await viewOf(h.store, orderId))?.parked).toEqual([{ sequence: 3, entryId: `${orderId}-e3` }]);
    });

    it('dead-letters its entryId with other content as IdempotencyKeyConflict (rule 3)', async () => {
      // Prepare
      const { h, e } = await withParked();
      // Act
      const { result } = await h.send(e.added(3, 't-1', 11));
      // Assess
      expect(result).toMatchObject({ outcome: 'deadLettered', reason: 'IdempotencyKeyConflict' });
    });

    it('dead-letters another entryId at its sequence as SequenceConflict (rule 4)', async () => {
      // Prepare
      const { h, e } = await withParked();
      // Act
      const { result } = await h.send(e.added(3, 't-1', 10, 'intruder'));
      // Assess
      expect(result).toMatchObject({ outcome: 'deadLettered', reason: 'SequenceConflict' });
      expect(h.telemetry.alerts.map((a) => a.name)).toEqual(['SequenceConflict']);
    });

    it('recognises a copy from the parked index on a cached order, and a conflict from its record', async () => {
      // Prepare
      const { h, e } = await withParked();
      // Act
      const duplicate = await h.send(e.added(3, 't-1', 10));
      const conflict = await h.send(e.added(3, 't-1', 12));
      // Assess
      expect(duplicate.result.outcome).toBe('duplicate');
      expect(conflict.result).toMatchObject({ outcome: 'deadLettered', reason: 'IdempotencyKeyConflict' });
    });
  });

  it('holds the order at a dead-lettered sequence until a corrected resubmission arrives (rule 10)', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    const bad = await h.send(e.amended(2, 't-unknown', 1));
    const later = [await h.send(e.added(3, 't-1', 10)), await h.send(e.added(4, 't-2', 20))];
    const corrected = e.added(2, 't-0', 5); // same entryId, corrected content
    const resubmit = resubmission(corrected.entryId, []);
    // Act
    const { result } = await h.send(
      messageFor(corrected, {
        messageId: resubmit.messageId,
        applicationProperties: { sequence: 2, type: corrected.type, resubmitCount: resubmit.resubmitCount },
      }),
    );
    // Assess
    expect(bad.result).toMatchObject({ outcome: 'deadLettered', reason: 'InvalidTransition' });
    expect(later.map((r) => r.result.outcome)).toEqual(['parked', 'parked']);
    expect(resubmit).toEqual({ messageId: `${orderId}-e2.r1`, resubmitCount: 1 });
    expect(result).toMatchObject({ outcome: 'applied', drained: 2 });
    expect(await viewOf(h.store, orderId)).toMatchObject({ lastSequence: 4, total: 35 });
  });

  it('moves a parked entry that turns out invalid to rejected, then a corrected resubmission lets the order go on (rule 11)', async () => {
    // Prepare: sequence 3 amends t-1, which sequence 2 will not add
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.amended(3, 't-1', 900));
    await h.send(e.added(4, 't-2', 40));
    // Act
    const fill = await h.send(e.added(2, 't-9', 100));
    const afterRejection = await viewOf(h.store, orderId);
    const docsAfterRejection = h.store.documents(orderId);
    const fixed = await h.send(messageFor(e.added(3, 't-1', 900), { messageId: `${orderId}-e3.r1` }));
    // Assess
    expect(fill.result).toMatchObject({ outcome: 'applied', drained: 0, rejected: 1 });
    expect(h.telemetry.alerts).toEqual([
      {
        name: 'ParkedEntryRejected',
        fields: expect.objectContaining({
          orderId,
          entryId: `${orderId}-e3`,
          sequence: 3,
          reason: 'InvalidTransition',
        }),
      },
    ]);
    expect(afterRejection).toMatchObject({
      lastSequence: 2,
      parked: [{ sequence: 4, entryId: `${orderId}-e4` }],
      rejected: [{ sequence: 3, entryId: `${orderId}-e3`, reason: 'InvalidTransition' }],
    });
    // Its record keeps the rejected entry, and counts as not seen: the correction replaces it.
    expect(docsAfterRejection.get(`entry:order-processor:${orderId}-e3`)).toMatchObject({
      status: 'rejected',
      reason: 'InvalidTransition',
    });
    expect(fixed.result).toMatchObject({ outcome: 'applied', drained: 1 });
    expect(await viewOf(h.store, orderId)).toMatchObject({ lastSequence: 4, total: 1040, parked: [], rejected: [] });
    expect(h.store.documents(orderId).get(`entry:order-processor:${orderId}-e3`)).toMatchObject({ status: 'applied' });
  });

  it('resumes an interrupted drain when the triggering message is redelivered', async () => {
    // Prepare: the apply of 2 commits, then reading the parked 3 fails for good and the message is abandoned
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.added(3, 't-2', 5));
    h.store.injectFault({ on: 'read', kind: 'failed' });
    const first = await h.send(e.added(2, 't-1', 1));
    // Act
    const redelivered = await h.send(e.added(2, 't-1', 1));
    // Assess
    expect(first.result).toMatchObject({ outcome: 'abandoned', errorCode: 'StoreFailed' });
    expect(first.settlement.calls).toEqual([{ action: 'abandon' }]);
    expect(redelivered.result).toMatchObject({ outcome: 'duplicate', drained: 1 });
    expect((await viewOf(h.store, orderId))?.lastSequence).toBe(3);
  });
});
