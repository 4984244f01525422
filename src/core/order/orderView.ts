import type { DeadLetterReason } from '../deadLetterReasons.js';
import { bySequence, type OrderDocument } from '../documents/orderDocument.js';
import type { TransactionDocument } from '../documents/transactionDocument.js';
import type { OrderState, OrderStatus, Transaction } from './orderState.js';

/** The business state of an order: the GET view without its operational lists. */
export interface BusinessState {
  orderId: string;
  status: OrderStatus;
  customerId: string | null;
  currency: string | null;
  lastSequence: number;
  total: number;
  /** In the order they were added; an amendment changes the amount in place. */
  transactions: Transaction[];
}

/** `GET /api/orders/{orderId}` body. */
export interface OrderView extends BusinessState {
  parked: { sequence: number; entryId: string }[];
  rejected: { sequence: number; entryId: string; reason: DeadLetterReason }[];
}

/**
 * The order's summary right after an entry: what an event carries as `data.order` — its business state without its
 * identity and list of transactions, and their count instead.
 */
export type OrderSummary = Omit<BusinessState, 'orderId' | 'transactions'> & Pick<OrderState, 'transactionCount'>;

/** The summary of an order document (see {@link OrderSummary}). */
export function orderSummary(doc: OrderDocument): OrderSummary {
  const { status, customerId, currency, total, transactionCount } = doc.state;
  return { status, customerId, currency, lastSequence: doc.lastSequence, total, transactionCount };
}

/**
 * The GET view of an order document and its transaction documents (as one query of its partition read them, in any
 * order): business state plus `parked` and `rejected`, each sorted by sequence.
 */
export function orderView(doc: OrderDocument, transactions: readonly TransactionDocument[]): OrderView {
  return {
    orderId: doc.orderId,
    status: doc.state.status,
    customerId: doc.state.customerId,
    currency: doc.state.currency,
    lastSequence: doc.lastSequence,
    total: doc.state.total,
    transactions: [...transactions].sort((a, b) => a.addedSequence - b.addedSequence).map(transactionOf),
    parked: [...doc.parked].sort(bySequence).map((p) => ({ sequence: p.sequence, entryId: p.entryId })),
    rejected: [...doc.rejected]
      .sort(bySequence)
      .map((r) => ({ sequence: r.sequence, entryId: r.entryId, reason: r.reason })),
  };
}

/** A transaction as the view shows it: its document without the bookkeeping, so whatever an entry type writes shows. */
function transactionOf(doc: TransactionDocument): Transaction {
  const { id: _id, docType: _docType, orderId: _orderId, addedSequence: _addedSequence, ...transaction } = doc;
  return transaction;
}
