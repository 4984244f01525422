import { z } from 'zod';
import { amountSchema, entryOf, introducedId } from '../schemas/entry.js';
import { ORDER_MAX_TRANSACTIONS } from '../schemas/limits.js';
import { entryType, newTransaction } from './entryType.js';

/**
 * `TransactionAdded { transactionId, amount }`: a new transaction, `transactionId` 1–100 UTF-8 bytes. Its document is
 * created with no read before: a 409 on the create means the order holds that id (rule 7).
 */
export const transactionAdded = entryType({
  schema: entryOf('TransactionAdded', z.strictObject({ transactionId: introducedId(), amount: amountSchema })),
  eventType: 'convoy.order.transaction-added',
  apply(state, entry, facts) {
    const { transactionId, amount } = entry.data;
    if (facts.exists) return `Transaction ${transactionId} already exists in order ${entry.orderId}`;
    if (state.transactionCount >= ORDER_MAX_TRANSACTIONS)
      return `Order ${entry.orderId} already holds ${ORDER_MAX_TRANSACTIONS} transactions, the most an order may hold`;
    return {
      state: { ...state, total: state.total + amount, transactionCount: state.transactionCount + 1 },
      change: { transactionId, amount },
      transaction: { create: newTransaction(entry, { transactionId, amount }) },
    };
  },
  fold(order, change: { transactionId: string; amount: number }) {
    if (order.transactions.some((t) => t.transactionId === change.transactionId))
      throw new Error(`adds transaction ${change.transactionId}, which the order holds already`);
    return { ...order, total: order.total + change.amount, transactions: [...order.transactions, change] };
  },
});
