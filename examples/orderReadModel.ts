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
 * The event is the contract (docs/contracts.md, "Order events (topic `order-events`, session-enabled subscriptions)");
 * the fold of its `change` is Ledger Convoy's own, `foldOrderEvent` from `ledger-convoy/core`, so a new entry type
 * reaches this downstream with the app.
 */
import { app, type InvocationContext } from '@azure/functions';
import { foldOrderEvent, type BusinessState, type OrderCloudEvent } from 'ledger-convoy/core';

/** The subscription of `order-events` this downstream reads. */
export const SUBSCRIPTION = 'read-model';
/** The version of `data` this fold understands. */
const DATA_SCHEMA_V1 = 'urn:ledger-convoy:order-event-data:v1';

/** One order as this downstream keeps it: the business part of `GET /api/orders/{orderId}`. */
export type OrderReadModel = BusinessState;

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

/** Folds one event into the read model, once. */
export async function orderReadModel(message: unknown, context: InvocationContext): Promise<void> {
  const event = message as OrderCloudEvent;
  if (event.dataschema !== DATA_SCHEMA_V1)
    throw new Error(`${event.source} ${event.id}: data schema ${event.dataschema} is not ${DATA_SCHEMA_V1}`);
  if (await store.folded(event.source, event.id)) {
    context.log(`skipped ${event.source} ${event.id}: folded already (a redelivery or a replay)`);
    return;
  }
  // Throws, never skips, what it cannot fold: the message is retried, then dead-lettered, and an operator looks.
  await store.save(foldOrderEvent(await store.get(event.data.orderId), event.data), event.source, event.id);
}

app.serviceBusTopic('orderReadModel', {
  connection: 'ServiceBusConnection',
  topicName: 'order-events',
  subscriptionName: SUBSCRIPTION,
  isSessionsEnabled: true,
  handler: orderReadModel,
});
