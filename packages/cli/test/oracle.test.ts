import { describe, expect, it } from 'vitest';
import { ORACLE_MAX_TRANSACTIONS, expectedOrders, type OracleEntry } from '../src/oracle.js';
import { generateRun } from '../src/generator.js';

// Expectations here are worked out by hand from the contracts in docs/contracts.md (order state, rule 7), never from the core.
const created = (orderId: string, customerId = 'c-1', currency = 'EUR'): OracleEntry => ({
  entryId: `${orderId}-1`,
  orderId,
  sequence: 1,
  type: 'OrderCreated',
  data: { customerId, currency },
});
const added = (orderId: string, sequence: number, transactionId: string, amount: number): OracleEntry => ({
  entryId: `${orderId}-${sequence}`,
  orderId,
  sequence,
  type: 'TransactionAdded',
  data: { transactionId, amount },
});
const amended = (orderId: string, sequence: number, transactionId: string, amount: number): OracleEntry => ({
  entryId: `${orderId}-${sequence}`,
  orderId,
  sequence,
  type: 'TransactionAmended',
  data: { transactionId, amount },
});
const deleted = (orderId: string, sequence: number): OracleEntry => ({
  entryId: `${orderId}-${sequence}`,
  orderId,
  sequence,
  type: 'OrderDeleted',
  data: {},
});

describe('expectedOrders, the oracle', () => {
  it('applies each order in sequence, whatever the input order, in order of first appearance', () => {
    // Prepare: order a shuffled, order b in between.
    const entries = [
      amended('a', 3, 't1', 900),
      created('b', 'c-2', 'USD'),
      created('a'),
      added('a', 2, 't1', 1250),
      added('a', 4, 't2', -100),
    ];
    // Act
    const orders = expectedOrders(entries);
    // Assess: 900 (t1 amended from 1250) − 100 (a credit).
    expect(orders).toEqual([
      {
        orderId: 'a',
        status: 'open',
        customerId: 'c-1',
        currency: 'EUR',
        lastSequence: 4,
        total: 800,
        transactions: [
          { transactionId: 't1', amount: 900 },
          { transactionId: 't2', amount: -100 },
        ],
      },
      { orderId: 'b', status: 'open', customerId: 'c-2', currency: 'USD', lastSequence: 1, total: 0, transactions: [] },
    ]);
  });

  it('lets an amendment replace the amount in place, so the total changes by the difference', () => {
    const before = expectedOrders([created('a'), added('a', 2, 't1', 1000), added('a', 3, 't2', 50)])[0];
    const after = expectedOrders([
      created('a'),
      added('a', 2, 't1', 1000),
      added('a', 3, 't2', 50),
      amended('a', 4, 't1', 400),
    ])[0];
    expect(before?.total).toBe(1050);
    expect(after).toMatchObject({
      lastSequence: 4,
      total: 450,
      transactions: [
        { transactionId: 't1', amount: 400 },
        { transactionId: 't2', amount: 50 },
      ],
    });
  });

  it('keeps the transactions and the total of a deleted order', () => {
    const [order] = expectedOrders([created('a'), added('a', 2, 't1', 700), added('a', 3, 't2', 0), deleted('a', 4)]);
    expect(order).toEqual({
      orderId: 'a',
      status: 'deleted',
      customerId: 'c-1',
      currency: 'EUR',
      lastSequence: 4,
      total: 700,
      transactions: [
        { transactionId: 't1', amount: 700 },
        { transactionId: 't2', amount: 0 },
      ],
    });
  });

  it('throws on an invalid history, naming the order, the entry and what is wrong (a generator bug)', () => {
    const base = [created('a'), added('a', 2, 't1', 10)];
    const cases: [OracleEntry[], RegExp][] = [
      [
        [created('a'), added('a', 3, 't1', 10)],
        /order a \(a generator bug\): entry a-3 \(TransactionAdded at sequence 3\) comes after a hole: the order has no entry at sequence 2/,
      ],
      [[...base, { ...added('a', 2, 't9', 1), entryId: 'a-2b' }], /entry a-2b .* repeats a sequence/],
      [[...base, amended('a', 3, 'nope', 1)], /entry a-3 .* amends transaction nope, which does not exist/],
      [[...base, added('a', 3, 't1', 5)], /adds transaction t1, which already exists/],
      [[...base, deleted('a', 3), added('a', 4, 't2', 1)], /entry a-4 .* follows OrderDeleted/],
      [[added('a', 1, 't1', 1)], /entry a-1 \(TransactionAdded at sequence 1\) comes before OrderCreated/],
      [[...base, { ...created('a'), entryId: 'a-3', sequence: 3 }], /OrderCreated past sequence 1/],
      [[...base, { ...added('a', 3, 't2', 1), entryId: 'a-1' }], /reuses an entryId of the same order/],
      [[created('a', 'c-1', 'eur')], /currency that is not three upper-case letters/],
      [[created('a', 'c'.repeat(101))], /customerId that is not 1–100 characters/],
      [[created('a'), added('a', 2, '', 1)], /transactionId that is not 1–100 characters/],
      [[created('a'), added('a', 2, 't'.repeat(101), 1)], /transactionId that is not 1–100 characters/],
      [[created('a'), added('a', 2, 't1', 12.5)], /amount that is not a safe integer/],
      [
        [
          created('a'),
          { ...added('a', 2, 't1', 1), data: { transactionId: 't1', amount: 1, note: 'x' } } as unknown as OracleEntry,
        ],
        /data \{amount,note,transactionId\}/,
      ],
      [[{ ...created('a'), entryId: 'a 1' }], /entryId that is not 1–100 characters of/],
      [
        [created('a'), added('a', 2, 't1', Number.MAX_SAFE_INTEGER), added('a', 3, 't2', 1)],
        /total out of the safe integer range/,
      ],
    ];
    for (const [entries, message] of cases) expect(() => expectedOrders(entries), String(message)).toThrow(message);
  });

  it(`holds an order to ${ORACLE_MAX_TRANSACTIONS} transactions: one TransactionAdded more is invalid`, () => {
    // Prepare: OrderCreated, then 1,000 transactions of 1 cent each, then an amendment.
    const full = [created('a'), ...Array.from({ length: 1_000 }, (_, i) => added('a', i + 2, `t${i + 1}`, 1))];
    const amendedAtBound = [...full, amended('a', 1_002, 't1', 101)];
    // Act
    const [order] = expectedOrders(amendedAtBound);
    // Assess: the bound is on transactions, not entries; the 1,001st TransactionAdded is refused.
    expect(order).toMatchObject({ lastSequence: 1_002, total: 1_100 });
    expect(order?.transactions).toHaveLength(1_000);
    expect(() => expectedOrders([...full, added('a', 1_002, 't1001', 1)])).toThrow(
      /entry a-1002 .* past the 1,000-transaction bound/,
    );
  });

  it('accepts every generated run', () => {
    for (const seed of [11, 12, 13]) {
      const run = generateRun({
        orders: 20,
        entries: 7,
        ledgers: 5,
        duplicates: 0.3,
        conflicts: 5,
        poison: 4,
        gaps: 5,
        seed,
      });
      expect(expectedOrders(run.entries)).toHaveLength(20);
    }
  });
});
