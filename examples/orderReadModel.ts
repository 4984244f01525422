/**
 * A downstream of Ledger Convoy to copy: an Azure Function on its own session-enabled subscription of the
 * `order-events` topic that keeps a read model of every order by folding each event's `change`.
 *
 * - Its subscription is one entry in the Bicep parameter `orderEventSubscriptions` and the same entry in
 *   `infra/servicebus.config.json` (`read-model`; a SQL filter on `sys.Label`, the CloudEvents `type`, would take
 *   fewer events). Its identity needs Azure Service Bus Data Receiver on that subscription.
 * - Sessions (`sessionId` = the orderId) hand it one order's events one at a time, in sequence order.
 * - Delivery is at least once: (`source`, `id`) identifies an event, and one already folded is skipped.
 *
 * Nothing here imports Ledger Convoy: the event is the contract
 * (docs/contracts.md, "Order events (topic `order-events`, session-enabled subscriptions)").
 */
import { app, type InvocationContext } from '@azure/functions';

/** The subscription of `order-events` this downstream reads. */
export const SUBSCRIPTION = 'read-model';
/** The version of `data` this fold understands. */
const DATA_SCHEMA_V1 = 'urn:ledger-convoy:order-event-data:v1';

/** An order event as it arrives (a structured CloudEvent); only what the fold reads. */
interface OrderEvent {
  id: string;
  source: string;
  type: string;
  dataschema: string;
  data: { orderId: string; sequence: number; change: Record<string, unknown> };
}

/** One order as this downstream keeps it. */
export interface OrderReadModel {
  orderId: string;
  status: 'open' | 'deleted';
  customerId: string | null;
  currency: string | null;
  /** The sequence of the last event folded. */
  lastSequence: number;
  total: number;
  /** In the order they were added; an amendment changes the amount in place. */
  transactions: { transactionId: string; amount: number }[];
}

/** Where the read model lives: in a real downstream a database, with `save` one transaction. */
export interface ReadModelStore {
  get(orderId: string): Promise<OrderReadModel | undefined>;
  /** Whether the event (`source`, `id`) was folded already. */
  folded(source: string, id: string): Promise<boolean>;
  /** Saves the order and marks the event folded, together. */
  save(order: OrderReadModel, source: string, id: string): Promise<void>;
}

/** A {@link ReadModelStore} in memory, for a try-out. */
export class InMemoryReadModelStore implements ReadModelStore {
  private readonly orders = new Map<string, OrderReadModel>();
  private readonly events = new Set<string>();

  async get(orderId: string): Promise<OrderReadModel | undefined> {
    return this.orders.get(orderId);
  }

  async folded(source: string, id: string): Promise<boolean> {
    return this.events.has(`${source}\n${id}`);
  }

  async save(order: OrderReadModel, source: string, id: string): Promise<void> {
    this.orders.set(order.orderId, order);
    this.events.add(`${source}\n${id}`);
  }
}

/** The read model this function keeps. */
export const store: ReadModelStore = new InMemoryReadModelStore();

/** The order after `event`, folded into `order` (undefined before the first event). */
export function fold(order: OrderReadModel | undefined, event: OrderEvent): OrderReadModel {
  const { orderId, sequence, change } = event.data;
  const next: OrderReadModel = order
    ? { ...order, transactions: [...order.transactions] }
    : { orderId, status: 'open', customerId: null, currency: null, lastSequence: 0, total: 0, transactions: [] };
  switch (event.type) {
    case 'convoy.order.created':
      next.customerId = change.customerId as string;
      next.currency = change.currency as string;
      break;
    case 'convoy.order.transaction-added':
      next.transactions.push({ transactionId: change.transactionId as string, amount: change.amount as number });
      break;
    case 'convoy.order.transaction-amended': {
      const index = next.transactions.findIndex((t) => t.transactionId === change.transactionId);
      if (index < 0) throw new Error(`${event.source} ${event.id}: amends ${String(change.transactionId)}, not held`);
      next.transactions[index] = { transactionId: change.transactionId as string, amount: change.amount as number };
      break;
    }
    case 'convoy.order.deleted':
      next.status = 'deleted';
      break;
    default:
      // Never skip what cannot be folded: the message is retried, then dead-lettered, and an operator looks.
      throw new Error(`${event.source} ${event.id}: unknown event type ${event.type}`);
  }
  next.total = next.transactions.reduce((sum, t) => sum + t.amount, 0);
  next.lastSequence = sequence;
  return next;
}

/** Folds one event into the read model, once. */
export async function orderReadModel(message: unknown, context: InvocationContext): Promise<void> {
  const event = message as OrderEvent;
  if (event.dataschema !== DATA_SCHEMA_V1)
    throw new Error(`${event.source} ${event.id}: data schema ${event.dataschema} is not ${DATA_SCHEMA_V1}`);
  if (await store.folded(event.source, event.id)) {
    context.log(`skipped ${event.source} ${event.id}: folded already (a redelivery or a replay)`);
    return;
  }
  await store.save(fold(await store.get(event.data.orderId), event), event.source, event.id);
}

app.serviceBusTopic('orderReadModel', {
  connection: 'ServiceBusConnection',
  topicName: 'order-events',
  subscriptionName: SUBSCRIPTION,
  isSessionsEnabled: true,
  handler: orderReadModel,
});
