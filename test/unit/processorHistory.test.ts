import { describe, expect, it } from 'vitest';
import { transactionDocumentId } from '../../src/core/documents/documentIds.js';
import { requestHash } from '../../src/core/hash.js';
import { entriesFor, makeHarness, uniqueOrderId } from './support/fixtures.js';

describe("order processor, the rule 4 history is the entries' records, outside the order document", () => {
  it('keeps the order document the same size however many entries and transactions are applied', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.added(2, 't-1', 0));
    const sizeAt = async (sequence: number) => {
      for (let s = (await h.store.readOrder(orderId))!.doc.lastSequence + 1; s <= sequence; s++)
        await h.send(e.added(s, `t-${s}`, 0));
      return JSON.stringify((await h.store.readOrder(orderId))!.doc).length;
    };
    // Act
    const at10 = await sizeAt(10);
    const at200 = await sizeAt(200);
    // Assess
    expect(at200).toBe(at10 + 3); // lastSequence 10 → 200 and transactionCount 9 → 199: three digits; no transaction is in it
    expect((await h.store.listTransactions(orderId)).length).toBe(199);
  });

  it("writes an applied entry's record, with its event, in the apply's single commit: three documents, none with a ttl", async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    const before = { calls: { ...h.store.calls }, ids: new Set(h.store.documents(orderId).keys()) };
    // Act
    await h.send(e.added(2, 't-1', 10));
    // Assess
    expect(h.store.calls.commits - before.calls.commits).toBe(1);
    const docs = h.store.documents(orderId);
    const id = `entry:order-processor:${orderId}-e2`;
    expect([...docs.keys()].filter((k) => !before.ids.has(k)).sort()).toEqual(
      [id, transactionDocumentId('t-1')].sort(),
    );
    expect(docs.get(id)).toMatchObject({
      id,
      docType: 'entry',
      status: 'applied',
      orderId,
      entryId: `${orderId}-e2`,
      sequence: 2,
      requestHash: requestHash(e.added(2, 't-1', 10)),
      committedAt: expect.any(String),
      key: expect.stringMatching(/^evt-[0-9a-f]{32}$/),
      event: { id: `${orderId}-e2`, data: { sequence: 2, change: { transactionId: 't-1', amount: 10 } } },
    });
    expect([...docs.values()].filter((d) => 'ttl' in d)).toEqual([]);
    expect(new Set([...docs.values()].map((d) => d.docType))).toEqual(new Set(['order', 'entry', 'transaction']));
  });

  it("still tells a late copy from a conflict a year later, from the entry's permanent record (rules 2–4)", async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.added(2, 't-1', 10));
    h.clock.advance(366 * 86_400_000);
    // Act
    const late = await h.send(e.added(2, 't-1', 10));
    const reused = await h.send(e.added(2, 't-1', 11));
    const other = await h.send(e.added(2, 't-1', 10, 'other'));
    // Assess
    expect(h.store.documents(orderId).get(`entry:order-processor:${orderId}-e2`)).toMatchObject({ status: 'applied' });
    expect([late.result.outcome, reused.result.reason, other.result.reason]).toEqual([
      'duplicate',
      'IdempotencyKeyConflict',
      'SequenceConflict',
    ]);
  });

  it('dead-letters an entryId applied at another sequence when it comes back at an applied one', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.added(2, 't-1', 10));
    await h.send(e.added(3, 't-2', 10));
    h.clock.advance(3601 * 1000);
    // Act
    const { result } = await h.send(e.added(2, 't-1', 10, `${orderId}-e3`));
    // Assess
    expect(result).toMatchObject({ outcome: 'deadLettered', reason: 'IdempotencyKeyConflict' });
    expect(result.description).toContain('at sequence 3');
  });
});
