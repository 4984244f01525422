import { describe, expect, it } from 'vitest';
import { type OrderView } from 'ledger-convoy/core';
import { compareWithExpectation, type FoundDeadLetter } from '../src/compare.js';
import type { Expectation } from '../src/expectation.js';

const state = {
  orderId: 'r1-o0001',
  status: 'open' as const,
  customerId: 'c',
  currency: 'EUR',
  lastSequence: 2,
  total: 5,
  transactions: [{ transactionId: 't1', amount: 5 }],
};
const expectation: Expectation = {
  version: 1,
  run: 'r1',
  seed: 1,
  createdAt: '2026-01-01T00:00:00.000Z',
  counts: {
    orders: 2,
    entries: 3,
    ledgers: 1,
    resentLedgers: 0,
    duplicateEntries: 0,
    conflicts: 1,
    poison: 1,
    gaps: 0,
  },
  orders: [state, { ...state, orderId: 'r1-o0002' }],
  deadLetters: [
    { queue: 'orders', id: 'r1-o0001-e2', reason: 'IdempotencyKeyConflict', cause: 'conflict' },
    { queue: 'ledger', id: 'r1-p001', reason: 'SchemaValidationFailed', cause: 'badLedger' },
  ],
};
const view = (over: Partial<OrderView> = {}): OrderView => ({ ...state, parked: [], rejected: [], ...over });
const found = (queue: 'orders' | 'ledger', id: string, reason: string): FoundDeadLetter => ({
  queue,
  id,
  reason,
  messageId: id,
  description: undefined,
});

describe('compareWithExpectation', () => {
  const allDeadLetters = [
    found('orders', 'r1-o0001-e2', 'IdempotencyKeyConflict'),
    found('ledger', 'r1-p001', 'SchemaValidationFailed'),
  ];

  it('passes when every order and dead letter matches, ignoring other runs', () => {
    const orders = new Map([
      ['r1-o0001', view()],
      ['r1-o0002', view({ orderId: 'r1-o0002' })],
    ]);
    const c = compareWithExpectation(expectation, orders, [
      ...allDeadLetters,
      found('orders', 'r2-o0001-e1', 'SequenceConflict'),
    ]);
    expect(c.ok).toBe(true);
    expect(c.orders).toMatchObject({ matched: 2, mismatched: [], missing: [] });
    expect(c.deadLetters.byReason).toEqual([
      { reason: 'IdempotencyKeyConflict', expected: 1, found: 1 },
      { reason: 'SchemaValidationFailed', expected: 1, found: 1 },
    ]);
  });

  it('reports mismatched fields, waiting entries, missing orders and dead letters, and unexpected ones', () => {
    const orders = new Map<string, OrderView | undefined>([
      ['r1-o0001', view({ total: 7, parked: [{ sequence: 4, entryId: 'x' }] })],
      ['r1-o0002', undefined],
    ]);
    const c = compareWithExpectation(expectation, orders, [
      allDeadLetters[0] as FoundDeadLetter,
      found('orders', 'r1-o0001-e3', 'InvalidTransition'),
    ]);
    expect(c.ok).toBe(false);
    expect(c.orders.mismatched).toEqual([
      { orderId: 'r1-o0001', differences: ['total: expected 5, found 7', 'parked: 4:x still waiting'] },
    ]);
    expect(c.orders.missing).toEqual(['r1-o0002']);
    expect(c.deadLetters.missing.map((d) => d.id)).toEqual(['r1-p001']);
    expect(c.deadLetters.unexpected.map((d) => d.id)).toEqual(['r1-o0001-e3']);
  });

  it('counts a second copy of an expected dead letter as unexpected', () => {
    const orders = new Map([
      ['r1-o0001', view()],
      ['r1-o0002', view({ orderId: 'r1-o0002' })],
    ]);
    const c = compareWithExpectation(expectation, orders, [...allDeadLetters, allDeadLetters[0] as FoundDeadLetter]);
    expect(c.ok).toBe(false);
    expect(c.deadLetters.byReason[0]).toEqual({ reason: 'IdempotencyKeyConflict', expected: 1, found: 2 });
  });

  it('compares each transaction whole and every business field: one the oracle does not expect is a difference', () => {
    // Prepare: a view whose transaction, and whose order, carry a field the expectation has not
    const extra = { transactions: [{ transactionId: 't1', amount: 5, reversed: true }], closedAt: 'x' };
    const orders = new Map([
      ['r1-o0001', view(extra as Partial<OrderView>)],
      ['r1-o0002', view({ orderId: 'r1-o0002', hold: { targets: ['webhook'] } } as Partial<OrderView>)],
    ]);
    // Act
    const c = compareWithExpectation(expectation, orders, allDeadLetters);
    // Assess: the extra fields are differences; the hold, operational, is not
    expect(c.orders.mismatched).toEqual([
      {
        orderId: 'r1-o0001',
        differences: [
          'transactions: expected [{"transactionId":"t1","amount":5}], found [{"transactionId":"t1","amount":5,"reversed":true}]',
          'closedAt: expected undefined, found "x"',
        ],
      },
    ]);
  });
});
