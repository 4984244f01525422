import type { BusinessState } from '../../src/core/index.js';
import type { OrderEventData } from '../../src/core/outbox/orderCloudEvent.js';

/**
 * What a consumer of `order-events` does with one event: folds its `change` into the order it holds (`undefined`
 * before the first event), and checks the event's summary against the result (the contract, docs/architecture.md
 * "Order events"). Throws when the event contradicts the fold.
 */
export function foldEvent(order: BusinessState | undefined, event: OrderEventData): BusinessState {
  const { change, order: summary } = event;
  const transactions = [...(order?.transactions ?? [])];
  let customerId = order?.customerId ?? null;
  let currency = order?.currency ?? null;
  if (event.type === 'OrderCreated') {
    ({ customerId, currency } = change as { customerId: string; currency: string });
  } else if (event.type === 'TransactionAdded') {
    const { transactionId, amount } = change as { transactionId: string; amount: number };
    if (transactions.some((t) => t.transactionId === transactionId))
      throw new Error(`event ${event.sequence} adds ${transactionId} twice`);
    transactions.push({ transactionId, amount });
  } else if (event.type === 'TransactionAmended') {
    const { transactionId, amount, previousAmount } = change as {
      transactionId: string;
      amount: number;
      previousAmount: number;
    };
    const index = transactions.findIndex((t) => t.transactionId === transactionId);
    if (index < 0 || transactions[index]!.amount !== previousAmount)
      throw new Error(
        `event ${event.sequence} amends ${transactionId} from ${previousAmount}, which the fold does not hold`,
      );
    transactions[index] = { transactionId, amount };
  }
  const total = transactions.reduce((sum, t) => sum + t.amount, 0);
  const expected = { customerId, currency, total, transactionCount: transactions.length };
  const stated = {
    customerId: summary.customerId,
    currency: summary.currency,
    total: summary.total,
    transactionCount: summary.transactionCount,
  };
  if (JSON.stringify(expected) !== JSON.stringify(stated))
    throw new Error(
      `event ${event.sequence}'s summary ${JSON.stringify(stated)} is not the fold's ${JSON.stringify(expected)}`,
    );
  return {
    orderId: event.orderId,
    status: summary.status,
    customerId,
    currency,
    lastSequence: summary.lastSequence,
    total,
    transactions,
  };
}

/** Folds an order's events in sequence order (see {@link foldEvent}); `undefined` for no events. */
export function foldOrderEvents(events: readonly OrderEventData[]): BusinessState | undefined {
  return [...events].sort((a, b) => a.sequence - b.sequence).reduce<BusinessState | undefined>(foldEvent, undefined);
}
