import { TransitionError } from '../errors.js';
import type { Entry } from '../schemas/entry.js';
import { ORDER_MAX_TRANSACTIONS } from '../schemas/limits.js';
import { OrderStatus, type OrderState } from './orderState.js';

/**
 * What an applied entry did, as its event carries it (`data.change`): folding these in sequence order rebuilds the
 * order. `OrderDeleted` changes nothing but the status.
 */
export type EntryChange =
  | { customerId: string; currency: string }
  | { transactionId: string; amount: number }
  | { transactionId: string; amount: number; previousAmount: number }
  | Record<string, never>;

/** What the store said about the entry's transaction, as far as it was asked. */
export interface TransactionFacts {
  /** For `TransactionAdded`: its create met a document of that `transactionId` (a 409 in the entry's batch). */
  exists?: boolean;
  /** For `TransactionAmended`: the transaction as read (its amount), `null` when the order has none of that id. */
  current?: { amount: number } | null;
}

/** Outcome of {@link applyTransition}: the next state and what changed, or why the entry is impossible (rule 7). */
export type TransitionResult =
  { ok: true; state: OrderState; change: EntryChange } | { ok: false; error: TransitionError };

/**
 * The order state machine, on the order's summary. Returns the state after `entry` without touching `state`, or an
 * `InvalidTransition` for: anything but `OrderCreated` at sequence 1, `OrderCreated` twice, `TransactionAdded` of an
 * existing `transactionId` (`transaction.exists`) or past {@link ORDER_MAX_TRANSACTIONS}, `TransactionAmended` of an
 * unknown one (`transaction.current` null), anything after `OrderDeleted`, and a total outside the safe integer
 * range. The caller has already checked that `entry.sequence` is the next one, and read the transaction an
 * amendment of an open order names.
 */
export function applyTransition(state: OrderState, entry: Entry, transaction: TransactionFacts = {}): TransitionResult {
  if (state.status === OrderStatus.Deleted) {
    return invalid(
      `Order ${entry.orderId} is deleted; ${entry.type} at sequence ${entry.sequence} cannot follow OrderDeleted`,
    );
  }
  if (entry.type === 'OrderCreated') {
    if (state.status !== OrderStatus.Pending)
      return invalid(`Order ${entry.orderId} already exists; OrderCreated cannot come twice`);
    if (entry.sequence !== 1) return invalid(`OrderCreated must be sequence 1, not ${entry.sequence}`);
    const { customerId, currency } = entry.data;
    return ok({ ...state, status: OrderStatus.Open, customerId, currency }, { customerId, currency });
  }
  if (state.status === OrderStatus.Pending || entry.sequence === 1) {
    return invalid(`Sequence 1 of order ${entry.orderId} must be OrderCreated, not ${entry.type}`);
  }
  switch (entry.type) {
    case 'TransactionAdded': {
      const { transactionId, amount } = entry.data;
      if (transaction.exists) return invalid(`Transaction ${transactionId} already exists in order ${entry.orderId}`);
      if (state.transactionCount >= ORDER_MAX_TRANSACTIONS) {
        return invalid(
          `Order ${entry.orderId} already holds ${ORDER_MAX_TRANSACTIONS} transactions, the most an order may hold`,
        );
      }
      return withTotal({ ...state, transactionCount: state.transactionCount + 1 }, state.total + amount, {
        transactionId,
        amount,
      });
    }
    case 'TransactionAmended': {
      const { transactionId, amount } = entry.data;
      if (transaction.current === undefined)
        throw new TypeError(`applyTransition: amendment ${entry.entryId} needs its transaction read first`);
      if (transaction.current === null)
        return invalid(`Transaction ${transactionId} does not exist in order ${entry.orderId}`);
      const previousAmount = transaction.current.amount;
      return withTotal(state, state.total - previousAmount + amount, { transactionId, amount, previousAmount });
    }
    case 'OrderDeleted':
      return ok({ ...state, status: OrderStatus.Deleted }, {});
  }
}

function withTotal(state: OrderState, total: number, change: EntryChange): TransitionResult {
  // Every amount is a safe integer, but their sum need not be: past 2^53 money would silently round.
  if (!Number.isSafeInteger(total)) return invalid('The order total would leave the safe integer range');
  return ok({ ...state, total }, change);
}

function ok(state: OrderState, change: EntryChange): TransitionResult {
  return { ok: true, state, change };
}

function invalid(message: string): TransitionResult {
  return { ok: false, error: new TransitionError(message) };
}
