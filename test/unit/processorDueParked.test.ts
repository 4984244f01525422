import { describe, expect, it } from 'vitest';
import { entriesFor, makeHarness, uniqueOrderId, viewOf } from './support/fixtures.js';

/**
 * Sequence 3 parked; the message applying 2 commits but its drain fails, so the broker ends up dead-lettering it
 * (MaxDeliveryCountExceeded): the order is left at lastSequence 2 with its next sequence parked and due.
 */
async function withDueParked() {
  const h = makeHarness();
  const orderId = uniqueOrderId();
  const e = entriesFor(orderId);
  await h.send(e.created());
  await h.send(e.added(3, 't-3', 30));
  h.store.injectFault({ on: 'read', kind: 'failed' }); // the drain's read of parked:3
  const lost = await h.send(e.added(2, 't-2', 20));
  expect(lost.result).toMatchObject({ outcome: 'abandoned', errorCode: 'StoreFailed' });
  expect(await viewOf(h.store, orderId)).toMatchObject({ lastSequence: 2, parked: [{ sequence: 3 }] });
  return { h, orderId, e };
}

describe('order processor, a parked entry that is due (rules 4, 5)', () => {
  it('drains the due entry after parking a new one behind it', async () => {
    // Prepare
    const { h, orderId, e } = await withDueParked();
    // Act
    const { result } = await h.send(e.added(4, 't-4', 40));
    // Assess
    expect(result).toMatchObject({ outcome: 'parked', drained: 2 });
    expect(await viewOf(h.store, orderId)).toMatchObject({ lastSequence: 4, total: 90, parked: [] });
  });

  it('dead-letters another entry at the due sequence as SequenceConflict, then applies the parked one', async () => {
    // Prepare
    const { h, orderId, e } = await withDueParked();
    // Act
    const intruder = await h.send(e.added(3, 't-x', 1, 'intruder'));
    const redelivered = await h.send(e.added(3, 't-3', 30));
    // Assess
    expect(intruder.result).toMatchObject({ outcome: 'deadLettered', reason: 'SequenceConflict', drained: 1 });
    expect(h.telemetry.alerts).toEqual([
      { name: 'SequenceConflict', fields: expect.objectContaining({ orderId, entryId: 'intruder', sequence: 3 }) },
    ]);
    expect(await viewOf(h.store, orderId)).toMatchObject({ lastSequence: 3, total: 50, parked: [] });
    const docs = h.store.documents(orderId);
    expect(docs.has('parked:3')).toBe(false);
    expect(docs.has('entry:order-processor:intruder')).toBe(false);
    expect(docs.get(`entry:order-processor:${orderId}-e3`)).toMatchObject({ status: 'applied' });
    expect(redelivered.result.outcome).toBe('duplicate');
  });

  it("dead-letters the due entry's entryId with other content as IdempotencyKeyConflict, then applies the parked one", async () => {
    // Prepare
    const { h, orderId, e } = await withDueParked();
    // Act
    const { result } = await h.send(e.added(3, 't-3', 31));
    // Assess
    expect(result).toMatchObject({ outcome: 'deadLettered', reason: 'IdempotencyKeyConflict', drained: 1 });
    expect(await viewOf(h.store, orderId)).toMatchObject({ lastSequence: 3, total: 50 });
  });

  it('completes a redelivery of the due entry as a duplicate and applies it', async () => {
    // Prepare
    const { h, orderId, e } = await withDueParked();
    // Act
    const { result } = await h.send(e.added(3, 't-3', 30));
    // Assess
    expect(result).toMatchObject({ outcome: 'duplicate', drained: 1 });
    expect((await viewOf(h.store, orderId))?.lastSequence).toBe(3);
  });

  it('applies the due entry when the gap timer drains the idle order', async () => {
    // Prepare
    const { h, orderId } = await withDueParked();
    // Act
    const report = await h.processor.drain(orderId);
    const again = await h.processor.drain(orderId);
    // Assess
    expect(report).toEqual({ orderId, drained: 1, rejected: 0, alerted: 0 });
    expect(again).toEqual({ orderId, drained: 0, rejected: 0, alerted: 0 });
    expect(await viewOf(h.store, orderId)).toMatchObject({ lastSequence: 3, total: 50, parked: [] });
  });

  it('still dead-letters when the drain after the dead letter fails, and the gap timer resumes it', async () => {
    // Prepare: the intruder's dead letter stands on two reads (the fresh order, its record); the drain's next read fails
    const { h, orderId, e } = await withDueParked();
    h.store.injectFault({ on: 'read', kind: 'failed', skip: 2 });
    // Act
    const intruder = await h.send(e.added(3, 't-x', 1, 'intruder'));
    const report = await h.processor.drain(orderId);
    // Assess
    expect(intruder.result).toMatchObject({ outcome: 'deadLettered', reason: 'SequenceConflict', drained: 0 });
    expect(intruder.settlement.calls).toEqual([
      { action: 'deadLetter', reason: 'SequenceConflict', description: expect.any(String) },
    ]);
    expect(
      h.telemetry.logs.some((l) => l.message === 'drain failed after a dead letter' && l.fields.code === 'StoreFailed'),
    ).toBe(true);
    expect(report.drained).toBe(1);
    expect((await viewOf(h.store, orderId))?.lastSequence).toBe(3);
  });

  it('rejects from the gap timer when the store keeps failing', async () => {
    // Prepare
    const { h, orderId } = await withDueParked();
    h.store.injectFault({ on: 'read', kind: 'failed' });
    // Act
    const act = h.processor.drain(orderId);
    // Assess
    await expect(act).rejects.toMatchObject({ code: 'StoreFailed' });
  });
});
