import type { DeadLetterReason } from '../deadLetterReasons.js';
import type { OrderDocument } from '../documents/orderDocument.js';
import type { OrderStatus, Transaction } from './orderState.js';

/** The business state of an order: what `order-events` carries as `order`. The GET view without operational lists. */
export interface BusinessState {
  orderId: string;
  status: OrderStatus;
  customerId: string | null;
  currency: string | null;
  lastSequence: number;
  total: number;
  transactions: Transaction[];
}

/** `GET /api/orders/{orderId}` body. */
export interface OrderView extends BusinessState {
  parked: { sequence: number; entryId: string }[];
  rejected: { sequence: number; entryId: string; reason: DeadLetterReason }[];
}

/** The business state of an order document. */
export function businessState(doc: OrderDocument): BusinessState {
  return {
    orderId: doc.orderId,
    status: doc.state.status,
    customerId: doc.state.customerId,
    currency: doc.state.currency,
    lastSequence: doc.lastSequence,
    total: doc.state.total,
    transactions: doc.state.transactions.map((t) => ({ transactionId: t.transactionId, amount: t.amount })),
  };
}

/** The GET view of an order document: business state plus `parked` and `rejected`, each sorted by sequence. */
export function orderView(doc: OrderDocument): OrderView {
  return {
    ...businessState(doc),
    parked: [...doc.parked].sort(bySequence).map((p) => ({ sequence: p.sequence, entryId: p.entryId })),
    rejected: [...doc.rejected].sort(bySequence).map((r) => ({ sequence: r.sequence, entryId: r.entryId, reason: r.reason })),
  };
}

function bySequence(a: { sequence: number }, b: { sequence: number }): number {
  return a.sequence - b.sequence;
}
