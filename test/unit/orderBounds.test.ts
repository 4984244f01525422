import { describe, expect, it } from 'vitest';
import { ORDER_MAX_TRANSACTIONS, type Entry } from '../../src/core/index.js';
import { ORDER_MAX_PARKED } from '../../src/core/schemas/limits.js';
import { OrderCache } from '../../src/core/processor/orderCache.js';
import { applyTransition } from '../../src/core/order/transition.js';
import { initialOrderState } from '../../src/core/order/orderState.js';
import { entriesFor, makeHarness, messageFor, uniqueOrderId, viewOf } from './support/fixtures.js';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('an order holds at most 1,000 transactions (rule 7)', () => {
  const e = entriesFor('o-1');
  /** The state after OrderCreated and `count` TransactionAdded (t-1 … t-count). */
  function stateWith(count: number) {
    let state = initialOrderState();
    for (const entry of [e.created(), ...range(1, count).map((i) => e.added(i + 1, `t-${i}`, 1))]) {
      const result = applyTransition(state, entry, { exists: false });
      if (typeof result === 'string') throw new Error(result);
      state = result.state;
    }
    return state;
  }

  it('adds the 1,000th transaction, refuses the 1,001st as InvalidTransition, and still amends', () => {
    // Prepare
    const almost = stateWith(ORDER_MAX_TRANSACTIONS - 1);
    // Act
    const last = applyTransition(almost, e.added(ORDER_MAX_TRANSACTIONS + 1, 't-last', 5), { exists: false });
    const full = typeof last === 'string' ? almost : last.state;
    const beyond = applyTransition(full, e.added(ORDER_MAX_TRANSACTIONS + 2, 't-beyond', 5), { exists: false });
    const amend = applyTransition(full, e.amended(ORDER_MAX_TRANSACTIONS + 2, 't-1', 7), {
      current: {
        id: 'txn:1',
        docType: 'transaction',
        orderId: 'o-1',
        transactionId: 't-1',
        amount: 1,
        addedSequence: 2,
      },
    });
    // Assess
    expect(typeof last !== 'string' && last.state.transactionCount).toBe(ORDER_MAX_TRANSACTIONS);
    expect(beyond).toBe('Order o-1 already holds 1000 transactions, the most an order may hold');
    expect(typeof amend !== 'string' && amend.state.total).toBe(ORDER_MAX_TRANSACTIONS - 2 + 7 + 5); // t-1 from 1 to 7, t-last 5, the rest 1 each
  });

  it('dead-letters the 1,001st TransactionAdded through the processor and keeps the order as it was', async () => {
    // Prepare
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const o = entriesFor(orderId);
    await h.send(o.created());
    for (const i of range(1, ORDER_MAX_TRANSACTIONS)) await h.send(o.added(i + 1, `t-${i}`, 1));
    // Act
    const { result } = await h.send(o.added(ORDER_MAX_TRANSACTIONS + 2, 't-beyond', 1));
    // Assess
    expect(result).toMatchObject({ outcome: 'deadLettered', reason: 'InvalidTransition' });
    expect(await viewOf(h.store, orderId)).toMatchObject({
      lastSequence: ORDER_MAX_TRANSACTIONS + 1,
      total: ORDER_MAX_TRANSACTIONS,
    });
  });
});

describe('an order parks at most 1,000 entries (rules 5, 7, 10)', () => {
  /**
   * OrderCreated, then sequences 3 … 1,002 parked behind the missing 2: the parked bound. Every parked entry
   * amends t-1 (which sequence 2 adds), so the transaction bound plays no part.
   */
  async function fullOrder() {
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    const parkedAt = (sequence: number): Entry => e.amended(sequence, 't-1', sequence);
    await h.send(e.created());
    for (const sequence of range(3, ORDER_MAX_PARKED + 2)) await h.send(parkedAt(sequence));
    return { h, orderId, e, parkedAt };
  }

  it('dead-letters a gap entry beyond the bound as InvalidTransition, and it holds the order there until resubmitted', async () => {
    // Prepare
    const { h, orderId, e, parkedAt } = await fullOrder();
    const beyond = parkedAt(ORDER_MAX_PARKED + 3);
    // Act
    const refused = await h.send(beyond);
    const afterRefusal = await viewOf(h.store, orderId);
    const documentsAfterRefusal = new Set(h.store.documents(orderId).keys());
    const filled = await h.send(e.added(2, 't-1', 0));
    const behind = await h.send(parkedAt(ORDER_MAX_PARKED + 4));
    // The operator's resubmission of the dead letter (rule 10)
    const resubmitted = await h.send(
      messageFor(beyond, {
        messageId: `${beyond.entryId}.r1`,
        applicationProperties: { sequence: beyond.sequence, type: beyond.type, resubmitCount: 1 },
      }),
    );
    // Assess
    expect(refused.result).toMatchObject({ outcome: 'deadLettered', reason: 'InvalidTransition' });
    expect(refused.result.description).toBe(
      `Order ${orderId} already holds 1000 parked entries, the most an order may hold; sequence 1003 cannot park behind the gap at 2`,
    );
    expect(afterRefusal?.parked).toHaveLength(ORDER_MAX_PARKED);
    expect(documentsAfterRefusal.has(`entry:order-processor:${beyond.entryId}`)).toBe(false);
    expect(documentsAfterRefusal.has(`parked:${beyond.sequence}`)).toBe(false);
    expect(filled.result).toMatchObject({ outcome: 'applied', drained: ORDER_MAX_PARKED });
    expect(behind.result.outcome).toBe('parked');
    expect(resubmitted.result).toMatchObject({ outcome: 'applied', drained: 1 });
    expect(await viewOf(h.store, orderId)).toMatchObject({
      lastSequence: ORDER_MAX_PARKED + 4,
      total: ORDER_MAX_PARKED + 4,
      parked: [],
    });
  });

  it('still completes a redelivered copy of a parked entry as a duplicate when the order is full', async () => {
    // Prepare
    const { h, parkedAt } = await fullOrder();
    // Act
    const { result, settlement } = await h.send(parkedAt(500));
    // Assess
    expect(result.outcome).toBe('duplicate');
    expect(settlement.calls).toEqual([{ action: 'complete' }]);
  });

  it('recognises a copy of an entry parked after the gap filled as a duplicate even from a stale full view of the order', async () => {
    // Prepare: the session cache still shows the full order; another processor (its own cache) fills the gap,
    // which drains everything, and parks sequence 1,004 behind the new gap at 1,003.
    const { h, e, parkedAt } = await fullOrder();
    const other = new OrderCache();
    await h.send(e.added(2, 't-1', 0), other);
    const late = parkedAt(ORDER_MAX_PARKED + 4);
    const parked = await h.send(late, other);
    // Act: a redelivery of 1,004 reaches the session whose cache says the parked list is full
    const { result } = await h.send(late);
    // Assess
    expect(parked.result.outcome).toBe('parked');
    expect(result.outcome).toBe('duplicate');
  });
});
