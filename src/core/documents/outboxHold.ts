import type { OutboxRecord } from './outboxRecord.js';

/** Names of the relay's delivery targets, as holds name the failed ones. */
export const OutboxTarget = { OrderEvents: 'order-events', Webhook: 'webhook' } as const;
/** One of {@link OutboxTarget}. */
export type OutboxTarget = (typeof OutboxTarget)[keyof typeof OutboxTarget];

/** A copied outbox record in a hold, with the targets that still have to take it. */
export type HeldOutboxRecord = Omit<OutboxRecord, 'ttl'> & {
  /** Targets it has not reached yet, in delivery order (`order-events` before `webhook`). */
  pendingTargets: OutboxTarget[];
};

/**
 * An order's outbox hold (`id = outbox-hold:<orderId>`, in the order's partition): written by the relay when a
 * target still failed for the order after `OUTBOX_RETRY_BUDGET`, so that the order stops holding the other orders
 * of its feed range. It copies the undelivered records (it has no TTL, so a long hold loses nothing), and the
 * order's later records are appended to it, under its ETag, instead of being sent, until an operator releases it
 * (`convoy outbox retry`): the held records then go, in order, to their pending targets, and the hold is deleted.
 */
export interface OutboxHold {
  id: string;
  docType: 'outbox-hold';
  orderId: string;
  /** Every target some held record still has to reach. */
  failedTargets: OutboxTarget[];
  /** The held records, ascending by sequence, each id once. */
  records: HeldOutboxRecord[];
  /** The failure that started the hold, or the latest one. */
  lastError: string;
  heldAt: string;
  updatedAt: string;
}
