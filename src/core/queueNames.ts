/** The queues of the contract (docs/architecture.md, "Names everyone shares"): one list for the app, the CLI and the tools. */
export const QueueName = { Ledger: 'ledger', Orders: 'orders' } as const;
/** One of {@link QueueName}. */
export type QueueName = (typeof QueueName)[keyof typeof QueueName];
/** Every queue of the contract, in the order a message travels. */
export const QUEUE_NAMES: readonly QueueName[] = Object.values(QueueName);

/** The topic the outbox relay publishes order events to; each downstream reads its own subscription of it. */
export const ORDER_EVENTS_TOPIC = 'order-events';
/**
 * The subscription of {@link ORDER_EVENTS_TOPIC} the template and the entity file create by default: session-enabled,
 * every event, so nothing is lost before the first downstream subscribes (a topic drops what no subscription takes).
 */
export const ALL_EVENTS_SUBSCRIPTION = 'all';
