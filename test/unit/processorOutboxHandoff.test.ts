import { describe, expect, it } from 'vitest';
import { entriesFor, makeHarness, uniqueOrderId } from './support/fixtures.js';
import { orderEventKey } from '../../src/core/index.js';

describe('order processor, storing events for the relay', () => {
  it("stores the applied entry's event in its record, once, in its batch, with committedAt and no ttl", async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    // Act
    await h.send(e.created());
    // Assess: the record carries the state after the entry and nothing that is ever updated.
    const record = h.store.documents(orderId).get(`entry:order-processor:${orderId}-e1`);
    expect(record).toMatchObject({
      docType: 'entry',
      status: 'applied',
      orderId,
      entryId: `${orderId}-e1`,
      sequence: 1,
      committedAt: new Date(h.clock.now()).toISOString(),
    });
    expect(Object.keys(record!).sort()).toEqual(
      [
        'committedAt',
        'correlationId',
        'docType',
        'entryId',
        'event',
        'id',
        'key',
        'orderId',
        'requestHash',
        'sequence',
        'status',
        'type',
      ].sort(),
    );
    // …and the event exactly as it will leave, built at commit: its time is the commit's, its key per order.
    expect(record).toMatchObject({
      key: orderEventKey(`/orders/${orderId}`, `${orderId}-e1`),
      event: {
        specversion: '1.0',
        id: `${orderId}-e1`,
        source: `/orders/${orderId}`,
        type: 'convoy.order.created',
        time: new Date(h.clock.now()).toISOString(),
        dataschema: 'urn:ledger-convoy:order-event-data:v1',
        data: { orderId, sequence: 1, entryId: `${orderId}-e1` },
      },
    });
  });

  it('stores one event per applied entry, drained ones included, and none for parked entries or duplicates', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    // Act
    await h.send(e.added(3, 't-3', 30));
    await h.send(e.added(4, 't-4', 40));
    const appliedRecords = () =>
      [...h.store.documents(orderId).values()].filter(
        (d) => d.docType === 'entry' && d.status === 'applied' && 'event' in d,
      );
    const outboxAfterParking = appliedRecords().map((d) => d.id);
    await h.send(e.added(2, 't-2', 20));
    await h.send(e.added(2, 't-2', 20));
    // Assess
    expect(outboxAfterParking).toEqual([`entry:order-processor:${orderId}-e1`]);
    const records = appliedRecords();
    expect(records.map((r) => (r as { sequence: number }).sequence).sort()).toEqual([1, 2, 3, 4]);
    expect(h.store.documents(orderId).get(`entry:order-processor:${orderId}-e4`)).toMatchObject({
      event: { data: { order: { lastSequence: 4, total: 90 } } },
    });
  });
});
