import { z } from 'zod';
import { amountSchema, entryOf, namedId } from '../schemas/entry.js';
import { entryType } from './entryType.js';

/**
 * `TransactionAmended { transactionId, amount }`: the new amount replaces the old one of a transaction the order
 * holds. It reads that transaction first (its amount makes the new total) and replaces it under the read's ETag.
 */
export const transactionAmended = entryType({
  schema: entryOf('TransactionAmended', z.strictObject({ transactionId: namedId, amount: amountSchema })),
  eventType: 'convoy.order.transaction-amended',
  reads: (entry) => entry.data.transactionId,
  apply(state, entry, { current }) {
    const { transactionId, amount } = entry.data;
    if (!current) return `Transaction ${transactionId} does not exist in order ${entry.orderId}`;
    const previousAmount = current.amount;
    return {
      state: { ...state, total: state.total - previousAmount + amount },
      change: { transactionId, amount, previousAmount },
      transaction: { replace: { ...current, amount } },
    };
  },
  fold(
    order,
    { transactionId, amount, previousAmount }: { transactionId: string; amount: number; previousAmount: number },
  ) {
    const index = order.transactions.findIndex((t) => t.transactionId === transactionId);
    if (index < 0 || order.transactions[index]!.amount !== previousAmount)
      throw new Error(`amends transaction ${transactionId} from ${previousAmount}, which the order does not hold`);
    const transactions = order.transactions.with(index, { ...order.transactions[index]!, amount });
    return { ...order, total: order.total - previousAmount + amount, transactions };
  },
});
