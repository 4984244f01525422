/** The queues of the contract (docs/architecture.md, "Names everyone shares"): one list for the app, the CLI and the tools. */
export const QueueName = { Ledger: 'ledger', Orders: 'orders', OrderEvents: 'order-events' } as const;
/** One of {@link QueueName}. */
export type QueueName = (typeof QueueName)[keyof typeof QueueName];
/** Every queue of the contract, in the order a message travels. */
export const QUEUE_NAMES: readonly QueueName[] = Object.values(QueueName);
