import { TransitionError } from '../errors.js';
import type { Entry } from '../schemas/entry.js';
import { ORDER_MAX_TRANSACTIONS } from '../schemas/limits.js';
import { OrderStatus, type OrderState, type Transaction } from './orderState.js';

/** Outcome of {@link applyTransition}: the next state, or why the entry is impossible (rule 7). */
export type TransitionResult = { ok: true; state: OrderState } | { ok: false; error: TransitionError };

/**
 * The order state machine. Returns the state after `entry` without touching `state`, or an
 * `InvalidTransition` for: anything but `OrderCreated` at sequence 1, `OrderCreated` twice, `TransactionAdded`
 * of an existing `transactionId` or past {@link ORDER_MAX_TRANSACTIONS}, `TransactionAmended` of an unknown one,
 * anything after `OrderDeleted`, and a total outside the safe integer range. The caller has already checked
 * that `entry.sequence` is the next one.
 */
export function applyTransition(state: OrderState, entry: Entry): TransitionResult {
  if (state.status === OrderStatus.Deleted) {
    return invalid(`Order ${entry.orderId} is deleted; ${entry.type} at sequence ${entry.sequence} cannot follow OrderDeleted`);
  }
  if (entry.type === 'OrderCreated') {
    if (state.status !== OrderStatus.Pending) return invalid(`Order ${entry.orderId} already exists; OrderCreated cannot come twice`);
    if (entry.sequence !== 1) return invalid(`OrderCreated must be sequence 1, not ${entry.sequence}`);
    return ok({ ...state, status: OrderStatus.Open, customerId: entry.data.customerId, currency: entry.data.currency });
  }
  if (state.status === OrderStatus.Pending || entry.sequence === 1) {
    return invalid(`Sequence 1 of order ${entry.orderId} must be OrderCreated, not ${entry.type}`);
  }
  switch (entry.type) {
    case 'TransactionAdded': {
      const { transactionId, amount } = entry.data;
      if (state.transactions.some((t) => t.transactionId === transactionId)) {
        return invalid(`Transaction ${transactionId} already exists in order ${entry.orderId}`);
      }
      if (state.transactions.length >= ORDER_MAX_TRANSACTIONS) {
        return invalid(`Order ${entry.orderId} already holds ${ORDER_MAX_TRANSACTIONS} transactions, the most an order may hold`);
      }
      return withTransactions(state, [...state.transactions, { transactionId, amount }]);
    }
    case 'TransactionAmended': {
      const { transactionId, amount } = entry.data;
      if (!state.transactions.some((t) => t.transactionId === transactionId)) {
        return invalid(`Transaction ${transactionId} does not exist in order ${entry.orderId}`);
      }
      return withTransactions(
        state,
        state.transactions.map((t) => (t.transactionId === transactionId ? { transactionId, amount } : t)),
      );
    }
    case 'OrderDeleted':
      return ok({ ...state, status: OrderStatus.Deleted });
  }
}

function withTransactions(state: OrderState, transactions: Transaction[]): TransitionResult {
  const total = transactions.reduce((sum, t) => sum + t.amount, 0);
  // Every amount is a safe integer, but their sum need not be: past 2^53 money would silently round.
  if (!Number.isSafeInteger(total)) return invalid('The order total would leave the safe integer range');
  return ok({ ...state, transactions, total });
}

function ok(state: OrderState): TransitionResult {
  return { ok: true, state };
}

function invalid(message: string): TransitionResult {
  return { ok: false, error: new TransitionError(message) };
}
