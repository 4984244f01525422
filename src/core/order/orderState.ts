/** Lifecycle of an order as the GET view shows it. */
export const OrderStatus = {
  /** Entries are parked but `OrderCreated` has not been applied yet. */
  Pending: 'pending',
  Open: 'open',
  Deleted: 'deleted',
} as const;
/** One of {@link OrderStatus}. */
export type OrderStatus = (typeof OrderStatus)[keyof typeof OrderStatus];

/**
 * One transaction of an order, as the GET view, a consumer's fold and its document hold it (the document adds only its
 * bookkeeping, see `transactionOf`).
 */
export interface Transaction {
  /** As the entry gave it: a read whose stored id differs (a hash prefix shared by two ids) counts as not found. */
  transactionId: string;
  /** Current amount, integer minor units. */
  amount: number;
}

/**
 * The business state of an order as its summary keeps it, without its identity and position (those live in the order
 * document): constant in size, whatever the number of transactions. Each transaction is a document of its own
 * (`TransactionDocument`).
 */
export interface OrderState {
  status: OrderStatus;
  customerId: string | null;
  currency: string | null;
  /** Sum of the current transaction amounts, integer minor units. A deleted order keeps it. */
  total: number;
  /** Transactions the order holds (each added once, never removed): the 1,000-transaction bound reads it. */
  transactionCount: number;
}

/** The state of an order nothing has been applied to. */
export function initialOrderState(): OrderState {
  return { status: OrderStatus.Pending, customerId: null, currency: null, total: 0, transactionCount: 0 };
}
