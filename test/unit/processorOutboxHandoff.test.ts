import { describe, expect, it } from 'vitest';
import type { OutboxRecord } from '../../src/core/index.js';
import { entriesFor, makeHarness, uniqueOrderId } from './support/fixtures.js';

describe('order processor, handing its outbox records to the dispatcher', () => {
  it("returns the applied entry's outbox record with the ETag its batch answered", async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    // Act
    const { result } = await h.send(e.created());
    // Assess: the record as stored, and its ETag is the current one (a replace conditional on it goes through).
    expect(result.outbox).toHaveLength(1);
    const [created] = result.outbox!;
    expect(created!.doc).toEqual(h.store.documents(orderId).get(`outbox:${orderId}-e1`));
    expect(created!.doc).toMatchObject({ sequence: 1, status: 'pending', attempts: 0 });
    const claim = { ...created!.doc, status: 'in-progress' } as OutboxRecord;
    expect(await h.store.commit(orderId, [{ kind: 'replace', doc: claim, ifMatch: '"stale"' }])).toMatchObject({ ok: false, status: 412 });
    expect(await h.store.commit(orderId, [{ kind: 'replace', doc: claim, ifMatch: created!.etag }])).toMatchObject({ ok: true });
  });

  it('returns the records of the entry and of the parked entries it drained, in sequence order, and none when parking', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    // Act
    const parked3 = await h.send(e.added(3, 't-3', 30));
    const parked4 = await h.send(e.added(4, 't-4', 40));
    const filling = await h.send(e.added(2, 't-2', 20));
    const duplicate = await h.send(e.added(2, 't-2', 20));
    // Assess
    expect([parked3.result.outbox, parked4.result.outbox, duplicate.result.outbox]).toEqual([undefined, undefined, undefined]);
    expect(filling.result).toMatchObject({ outcome: 'applied', drained: 2 });
    expect(filling.result.outbox?.map((s) => [s.doc.sequence, s.doc.entryId])).toEqual([[2, `${orderId}-e2`], [3, `${orderId}-e3`], [4, `${orderId}-e4`]]);
    expect(filling.result.outbox?.[2]?.doc.order).toMatchObject({ lastSequence: 4, total: 90 });
  });

  it('keeps the records out of the log line', async () => {
    const h = makeHarness();
    const orderId = uniqueOrderId();
    await h.send(entriesFor(orderId).created());
    const line = h.telemetry.logs.find((l) => l.message === 'entry applied');
    expect(line?.fields).toMatchObject({ orderId, outcome: 'applied' });
    expect(line?.fields).not.toHaveProperty('outbox');
  });
});
