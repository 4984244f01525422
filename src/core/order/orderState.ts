/** Lifecycle of an order as the GET view shows it. */
export const OrderStatus = {
  /** Entries are parked but `OrderCreated` has not been applied yet. */
  Pending: 'pending',
  Open: 'open',
  Deleted: 'deleted',
} as const;
/** One of {@link OrderStatus}. */
export type OrderStatus = (typeof OrderStatus)[keyof typeof OrderStatus];

/** One transaction of an order; `amount` in integer minor units. */
export interface Transaction {
  transactionId: string;
  amount: number;
}

/** The business state of an order, without its identity and position (those live in the order document). */
export interface OrderState {
  status: OrderStatus;
  customerId: string | null;
  currency: string | null;
  /** Sum of the current transaction amounts, integer minor units. A deleted order keeps it. */
  total: number;
  /** Transactions in the order they were added; an amendment changes the amount in place. */
  transactions: Transaction[];
}

/** The state of an order nothing has been applied to. */
export function initialOrderState(): OrderState {
  return { status: OrderStatus.Pending, customerId: null, currency: null, total: 0, transactions: [] };
}
