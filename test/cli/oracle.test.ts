import { describe, expect, it } from 'vitest';
import { expectedOrders } from '../../cli/oracle.js';
import { generateRun } from '../../cli/generator.js';
import type { Entry } from '../../src/core/index.js';

const o1: Entry[] = [
  { entryId: 'a-3', orderId: 'a', sequence: 3, type: 'TransactionAmended', data: { transactionId: 't1', amount: 900 } },
  { entryId: 'a-1', orderId: 'a', sequence: 1, type: 'OrderCreated', data: { customerId: 'c-1', currency: 'EUR' } },
  { entryId: 'a-2', orderId: 'a', sequence: 2, type: 'TransactionAdded', data: { transactionId: 't1', amount: 1250 } },
  { entryId: 'a-4', orderId: 'a', sequence: 4, type: 'TransactionAdded', data: { transactionId: 't2', amount: -100 } },
  { entryId: 'a-5', orderId: 'a', sequence: 5, type: 'OrderDeleted', data: {} },
];
const o2: Entry[] = [{ entryId: 'b-1', orderId: 'b', sequence: 1, type: 'OrderCreated', data: { customerId: 'c-2', currency: 'USD' } }];

describe('expectedOrders', () => {
  it('applies each order in sequence, whatever the input order', () => {
    expect(expectedOrders([...o1, ...o2])).toEqual([
      {
        orderId: 'a',
        status: 'deleted',
        customerId: 'c-1',
        currency: 'EUR',
        lastSequence: 5,
        total: 800,
        transactions: [
          { transactionId: 't1', amount: 900 },
          { transactionId: 't2', amount: -100 },
        ],
      },
      { orderId: 'b', status: 'open', customerId: 'c-2', currency: 'USD', lastSequence: 1, total: 0, transactions: [] },
    ]);
  });

  it('refuses a history with a hole or an impossible transition', () => {
    expect(() => expectedOrders(o1.filter((e) => e.sequence !== 2))).toThrow(/sequence 2/);
    const amendUnknown: Entry = { entryId: 'b-2', orderId: 'b', sequence: 2, type: 'TransactionAmended', data: { transactionId: 'nope', amount: 1 } };
    expect(() => expectedOrders([...o2, amendUnknown])).toThrow(/b-2 is invalid/);
  });

  it('accepts every generated run', () => {
    for (const seed of [11, 12, 13]) {
      const run = generateRun({ orders: 20, entries: 7, ledgers: 5, duplicates: 0.3, conflicts: 5, poison: 4, gaps: 5, seed });
      expect(expectedOrders(run.entries)).toHaveLength(20);
    }
  });
});
