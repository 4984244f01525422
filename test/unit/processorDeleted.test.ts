import { describe, expect, it } from 'vitest';
import { entriesFor, makeHarness, uniqueOrderId, viewOf } from './support/fixtures.js';

describe('order processor, nothing may follow OrderDeleted (rules 7, 11)', () => {
  it('dead-letters an entry after a gap behind OrderDeleted as InvalidTransition instead of parking it', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.deleted(2));
    // Act
    const { result } = await h.send(e.added(5, 't-5', 1));
    // Assess
    expect(result).toMatchObject({ outcome: 'deadLettered', reason: 'InvalidTransition' });
    expect(result.description).toContain('cannot follow OrderDeleted');
    expect(await viewOf(h.store, orderId)).toMatchObject({
      status: 'deleted',
      lastSequence: 2,
      parked: [],
      rejected: [],
    });
    const docs = h.store.documents(orderId);
    expect(docs.has(`entry:order-processor:${orderId}-e5`)).toBe(false);
  });

  it('still completes a late copy of an applied entry of a deleted order as a duplicate (rule 2 before rule 7)', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.deleted(2));
    // Act
    const { result } = await h.send(e.deleted(2));
    // Assess
    expect(result.outcome).toBe('duplicate');
  });

  it('rejects every entry parked behind OrderDeleted when it is applied, with an alert each', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.added(3, 't-3', 3));
    await h.send(e.added(5, 't-5', 5));
    // Act
    const { result } = await h.send(e.deleted(2));
    // Assess
    expect(result).toMatchObject({ outcome: 'applied', drained: 0, rejected: 2 });
    expect(await viewOf(h.store, orderId)).toMatchObject({
      status: 'deleted',
      lastSequence: 2,
      parked: [],
      rejected: [
        { sequence: 3, entryId: `${orderId}-e3`, reason: 'InvalidTransition' },
        { sequence: 5, entryId: `${orderId}-e5`, reason: 'InvalidTransition' },
      ],
    });
    const docs = h.store.documents(orderId);
    const records = [3, 5].map((s) => docs.get(`entry:order-processor:${orderId}-e${s}`));
    expect(records).toMatchObject([
      { status: 'rejected', sequence: 3, reason: 'InvalidTransition' },
      { status: 'rejected', sequence: 5, reason: 'InvalidTransition' },
    ]);
    expect(h.telemetry.alerts.map((a) => [a.name, a.fields.sequence, a.fields.reason])).toEqual([
      ['ParkedEntryRejected', 3, 'InvalidTransition'],
      ['ParkedEntryRejected', 5, 'InvalidTransition'],
    ]);
    expect((await h.store.readOrder(orderId))?.doc.rejected.map((r) => r.alerted)).toEqual([true, true]);
  });

  it('rejects the entries behind a parked OrderDeleted once the drain applies it', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.deleted(3));
    await h.send(e.added(4, 't-4', 4));
    await h.send(e.added(6, 't-6', 6));
    // Act
    const { result } = await h.send(e.added(2, 't-2', 2));
    // Assess
    expect(result).toMatchObject({ outcome: 'applied', drained: 1, rejected: 2 });
    expect(await viewOf(h.store, orderId)).toMatchObject({
      status: 'deleted',
      lastSequence: 3,
      total: 2,
      parked: [],
      rejected: [{ sequence: 4 }, { sequence: 6 }],
    });
  });

  it('dead-letters a resubmission of a rejected entry behind OrderDeleted as InvalidTransition', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.added(3, 't-3', 3));
    await h.send(e.deleted(2));
    // Act
    const { result } = await h.send(e.added(3, 't-3', 3));
    // Assess
    expect(result).toMatchObject({ outcome: 'deadLettered', reason: 'InvalidTransition' });
  });
});
