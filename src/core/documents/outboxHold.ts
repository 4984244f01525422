/** Names of the relay's delivery targets, as holds name the held ones. */
export const OutboxTarget = { OrderEvents: 'order-events', Webhook: 'webhook' } as const;
/** One of {@link OutboxTarget}. */
export type OutboxTarget = (typeof OutboxTarget)[keyof typeof OutboxTarget];

/**
 * An order's outbox hold marker (`id = outbox-hold:<orderId>`, in the order's partition): written by the relay when
 * a target still failed for the order after `OUTBOX_RETRY_BUDGET`, so that the order stops holding the other orders
 * of its feed range. It is small: the held records are documents of their own (`OutboxHeldRecord`), and each append
 * is one transactional batch that creates the held record and replaces this marker under its ETag, raising
 * `heldThrough`. The `outboxHoldRetry` timer releases it when its next attempt is due (see `releaseHold`).
 */
export interface OutboxHold {
  id: string;
  docType: 'outbox-hold';
  orderId: string;
  version: 2;
  /** The targets held: `webhook`, or both when `order-events` refused a record for itself (too large). */
  targets: OutboxTarget[];
  /** The highest sequence held: a record up to it is held already (a replay appends nothing). */
  heldThrough: number;
  /** ISO time the hold was created. */
  since: string;
  /** ISO time from which a release is due (backoff with jitter after each failed one). */
  nextAttempt: string;
  /** Releases that failed since the hold was created (the backoff's exponent). */
  attempts: number;
  /** The failure that started the hold, or the latest one. */
  lastError: string;
  updatedAt: string;
  /** A release's claim: until then no other release starts (written under the ETag). */
  releasingUntil?: string;
  /** When `OutboxFailed` was raised again for a hold older than half of `OUTBOX_TTL`. */
  repeatAlertedAt?: string;
}
