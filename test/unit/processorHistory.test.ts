import { describe, expect, it } from 'vitest';
import { requestHash } from '../../src/core/hash.js';
import { entriesFor, makeHarness, uniqueOrderId } from './support/fixtures.js';

describe('order processor, the rule 4 history lives outside the order document', () => {
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

  it("writes one applied record per applied entry, in the apply's single commit, with no ttl", async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    const before = { ...h.store.calls };
    // Act
    await h.send(e.added(2, 't-1', 10));
    // Assess
    expect(h.store.calls.commits - before.commits).toBe(1);
    const record = h.store.documents(orderId).get(`applied:${orderId}-e2`);
    expect(record).toEqual({
      id: `applied:${orderId}-e2`,
      docType: 'applied',
      orderId,
      entryId: `${orderId}-e2`,
      sequence: 2,
      requestHash: requestHash(e.added(2, 't-1', 10)),
      appliedAt: expect.any(String),
    });
  });

  it('still tells a late copy from a conflict a year after the inbox record expired (rule 4)', async () => {
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
    expect(h.store.documents(orderId).has(`inbox:order-processor:${orderId}-e2`)).toBe(false);
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
    expect(result.description).toContain('applied at sequence 3');
  });
});
