import { describe, expect, it } from 'vitest';
import { type Entry } from '../../src/core/index.js';
import { applyTransition } from '../../src/core/order/transition.js';
import { initialOrderState, type OrderState } from '../../src/core/order/orderState.js';
import { dueOn } from '../../src/core/order/followUpCheck.js';
import { orderView } from '../../src/core/order/orderView.js';
import { staleGap } from '../../src/core/order/gapMonitor.js';
import type { OrderDocument } from '../../src/core/documents/orderDocument.js';
import type { TransactionDocument } from '../../src/core/documents/transactionDocument.js';
import { entriesFor } from './support/fixtures.js';

const e = entriesFor('o-1');

/** What the store would say of the transaction `entry` names, given the documents written so far. */
function factsFor(transactions: ReadonlyMap<string, TransactionDocument>, entry: Entry) {
  if (entry.type === 'TransactionAdded') return { exists: transactions.has(entry.data.transactionId) };
  if (entry.type === 'TransactionAmended') return { current: transactions.get(entry.data.transactionId) ?? null };
  return {};
}

/** Runs `entries` through the state machine, keeping the transaction documents each transition writes. */
function runWith(entries: Entry[]): { state: OrderState; transactions: Map<string, TransactionDocument> } {
  const transactions = new Map<string, TransactionDocument>();
  const state = entries.reduce((current, entry) => {
    const result = applyTransition(current, entry, factsFor(transactions, entry));
    if (typeof result === 'string') throw new Error(result);
    const written =
      result.transaction && ('create' in result.transaction ? result.transaction.create : result.transaction.replace);
    if (written) transactions.set(written.transactionId, written);
    return result.state;
  }, initialOrderState());
  return { state, transactions };
}

function run(entries: Entry[]): OrderState {
  return runWith(entries).state;
}

function facts(history: Entry[], entry: Entry) {
  return factsFor(runWith(history).transactions, entry);
}

describe('order state machine', () => {
  it('opens an order on OrderCreated with its customer and currency', () => {
    // Act
    const state = run([e.created()]);
    // Assess
    expect(state).toEqual({ status: 'open', customerId: 'c-9', currency: 'EUR', total: 0, transactionCount: 0 });
  });

  it('keeps the total as the sum of current amounts through adds, amends and credits', () => {
    // Act
    const { state, transactions } = runWith([
      e.created(),
      e.added(2, 't-1', 1250),
      e.added(3, 't-2', -250),
      e.amended(4, 't-1', 1100),
      e.added(5, 't-3', 0),
    ]);
    // Assess
    expect(state).toMatchObject({ total: 850, transactionCount: 3 });
    expect([...transactions.values()].map((t) => [t.transactionId, t.amount, t.addedSequence])).toEqual([
      ['t-1', 1100, 2],
      ['t-2', -250, 3],
      ['t-3', 0, 5],
    ]);
  });

  it('keeps transactions and total when the order is deleted', () => {
    // Act
    const state = run([e.created(), e.added(2, 't-1', 5), e.deleted(3)]);
    // Assess
    expect(state).toMatchObject({ status: 'deleted', total: 5, transactionCount: 1 });
  });

  it('does not change the state it was given', () => {
    // Prepare
    const before = run([e.created(), e.added(2, 't-1', 5)]);
    const snapshot = structuredClone(before);
    // Act
    run([e.created(), e.added(2, 't-1', 5), e.amended(3, 't-1', 9)]);
    applyTransition(before, e.amended(3, 't-1', 9), facts([e.created(), e.added(2, 't-1', 5)], e.amended(3, 't-1', 9)));
    // Assess
    expect(before).toEqual(snapshot);
  });

  it.each([
    ['TransactionAdded at sequence 1', [], e.added(1, 't-1', 1), /must be OrderCreated/],
    ['OrderDeleted on a pending order', [], e.deleted(1), /must be OrderCreated/],
    ['OrderCreated twice', [e.created()], e.created(2), /cannot come twice/],
    ['OrderCreated at a later sequence on a pending order', [], e.created(2), /must be sequence 1/],
    [
      'TransactionAdded of an existing transaction',
      [e.created(), e.added(2, 't-1', 1)],
      e.added(3, 't-1', 1),
      /already exists/,
    ],
    ['TransactionAmended of an unknown transaction', [e.created()], e.amended(2, 't-1', 1), /does not exist/],
    [
      'TransactionAdded past the 1,000-transaction bound',
      [e.created(), ...Array.from({ length: 1000 }, (_, i) => e.added(i + 2, `t-${i}`, 1))],
      e.added(1002, 't-new', 1),
      /already holds 1000 transactions/,
    ],
    [
      'an amendment whose new amount takes the total beyond the safe integers',
      [e.created(), e.added(2, 't-1', Number.MAX_SAFE_INTEGER - 1), e.added(3, 't-2', 0)],
      e.amended(4, 't-2', 2),
      /safe integer/,
    ],
    ['anything after OrderDeleted', [e.created(), e.deleted(2)], e.added(3, 't-1', 1), /cannot follow OrderDeleted/],
    ['OrderDeleted twice', [e.created(), e.deleted(2)], e.deleted(3), /cannot follow OrderDeleted/],
    [
      'a total beyond the safe integers',
      [e.created(), e.added(2, 't-1', Number.MAX_SAFE_INTEGER)],
      e.added(3, 't-2', 1),
      /safe integer/,
    ],
  ])('refuses %s with InvalidTransition', (_name, history, entry, message) => {
    // Prepare
    const state = run(history as Entry[]);
    // Act
    const result = applyTransition(state, entry as Entry, facts(history as Entry[], entry as Entry));
    // Assess
    expect(result).toEqual(expect.stringMatching(message as RegExp));
  });
});

function docWith(partial: Partial<OrderDocument>): OrderDocument {
  return {
    id: 'order',
    docType: 'order',
    orderId: 'o-1',
    lastSequence: 0,
    state: initialOrderState(),
    parked: [],
    rejected: [],
    updatedAt: '2025-01-01T00:00:00.000Z',
    ...partial,
  };
}

describe("what an entry changed (the event's change)", () => {
  it('says what each entry did, an amendment with the amount it replaced', () => {
    // Prepare
    const open = run([e.created(), e.added(2, 't-1', 1250)]);
    // Act + Assess
    expect(applyTransition(initialOrderState(), e.created())).toMatchObject({
      change: { customerId: 'c-9', currency: 'EUR' },
    });
    expect(applyTransition(open, e.added(3, 't-2', 7), { exists: false })).toMatchObject({
      change: { transactionId: 't-2', amount: 7 },
      state: { total: 1257, transactionCount: 2 },
      transaction: {
        create: { docType: 'transaction', orderId: 'o-1', transactionId: 't-2', amount: 7, addedSequence: 3 },
      },
    });
    const amended = e.amended(3, 't-1', 1100);
    expect(applyTransition(open, amended, facts([e.created(), e.added(2, 't-1', 1250)], amended))).toMatchObject({
      change: { transactionId: 't-1', amount: 1100, previousAmount: 1250 },
      state: { total: 1100, transactionCount: 1 },
      transaction: { replace: { transactionId: 't-1', amount: 1100, addedSequence: 2 } },
    });
    expect(applyTransition(open, e.deleted(3))).toMatchObject({
      change: {},
      state: { status: 'deleted', total: 1250, transactionCount: 1 },
    });
  });

  it('refuses an amendment of a pending or deleted order without its transaction read', () => {
    // Act + Assess
    expect(applyTransition(initialOrderState(), e.amended(2, 't-1', 1))).toEqual(expect.any(String));
    expect(applyTransition(run([e.created(), e.deleted(2)]), e.amended(3, 't-1', 1))).toEqual(expect.any(String));
  });
});

describe('order views', () => {
  it('sorts parked and rejected by sequence and leaves internal fields out', () => {
    // Prepare
    const doc = docWith({
      lastSequence: 2,
      state: run([e.created(), e.added(2, 't', 3)]),
      parked: [
        { sequence: 9, entryId: 'e-9', requestHash: 'h', parkedAt: '2025-01-01T00:00:00.000Z' },
        { sequence: 5, entryId: 'e-5', requestHash: 'h', parkedAt: '2025-01-01T00:00:00.000Z' },
      ],
      rejected: [
        { sequence: 4, entryId: 'e-4', requestHash: 'h', reason: 'InvalidTransition', rejectedAt: 'x', alerted: true },
        {
          sequence: 3,
          entryId: 'e-3',
          requestHash: 'h',
          reason: 'IdempotencyKeyConflict',
          rejectedAt: 'x',
          alerted: true,
        },
      ],
    });
    // Act
    const transactions = [
      { id: 'txn:x', docType: 'transaction' as const, orderId: 'o-1', transactionId: 't', amount: 3, addedSequence: 2 },
    ];
    const view = orderView(doc, transactions);
    // Assess
    expect(view).toEqual({
      orderId: 'o-1',
      status: 'open',
      customerId: 'c-9',
      currency: 'EUR',
      lastSequence: 2,
      total: 3,
      transactions: [{ transactionId: 't', amount: 3 }],
      parked: [
        { sequence: 5, entryId: 'e-5' },
        { sequence: 9, entryId: 'e-9' },
      ],
      rejected: [
        { sequence: 3, entryId: 'e-3', reason: 'IdempotencyKeyConflict' },
        { sequence: 4, entryId: 'e-4', reason: 'InvalidTransition' },
      ],
    });
  });

  it('reports a gap older than GAP_ALERT_AGE by its oldest parked entry, and none younger', () => {
    // Prepare
    const doc = docWith({
      lastSequence: 3,
      parked: [
        { sequence: 6, entryId: 'e-6', requestHash: 'h', parkedAt: '2025-01-01T00:10:00.000Z' },
        { sequence: 5, entryId: 'e-5', requestHash: 'h', parkedAt: '2025-01-01T00:00:00.000Z' },
      ],
    });
    const at = (iso: string) => Date.parse(iso);
    // Act
    const young = staleGap(doc, { nowMs: at('2025-01-01T00:14:59.999Z'), gapAlertAgeMs: 15 * 60_000 });
    const old = staleGap(doc, { nowMs: at('2025-01-01T00:15:00.000Z'), gapAlertAgeMs: 15 * 60_000 });
    // Assess
    expect(young).toBeUndefined();
    expect(old).toEqual({ orderId: 'o-1', waitingFor: 4, entryId: 'e-5', sequence: 5, ageMs: 15 * 60_000, parked: 2 });
    expect(staleGap(docWith({}), { nowMs: at('2030-01-01T00:00:00Z'), gapAlertAgeMs: 1 })).toBeUndefined();
  });

  it('tells the processor and the gap timer what is due: a parked entry at its turn, else an owed alert', () => {
    // Prepare
    const parked = (sequence: number) => ({
      sequence,
      entryId: `e-${sequence}`,
      requestHash: 'h',
      parkedAt: '2025-01-01T00:00:00.000Z',
    });
    const rejected = (alerted: boolean) => ({
      sequence: 3,
      entryId: 'e-3',
      requestHash: 'h',
      reason: 'InvalidTransition' as const,
      rejectedAt: 'then',
      alerted,
    });
    const open = run([e.created(), e.added(2, 't', 3)]);
    const deleted = run([e.created(), e.deleted(2)]);
    // Act
    const cases = [
      docWith({ lastSequence: 2, state: open, parked: [parked(3)] }),
      docWith({ lastSequence: 2, state: open, parked: [parked(4)] }),
      docWith({ lastSequence: 2, state: deleted, parked: [parked(6), parked(4)] }),
      docWith({ lastSequence: 2, state: open, rejected: [rejected(false)] }),
      docWith({ lastSequence: 2, state: open, rejected: [rejected(true)] }),
    ];
    // Assess
    expect(cases.map((doc) => dueOn(doc))).toMatchObject([
      { kind: 'parked', parked: { sequence: 3 } },
      undefined,
      { kind: 'parked', parked: { sequence: 4 } },
      { kind: 'alert', rejected: { sequence: 3 } },
      undefined,
    ]);
  });
});
