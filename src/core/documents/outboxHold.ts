/** Names of the relay's delivery targets, as holds name the held ones. */
export const OutboxTarget = { OrderEvents: 'order-events', Webhook: 'webhook' } as const;
/** One of {@link OutboxTarget}. */
export type OutboxTarget = (typeof OutboxTarget)[keyof typeof OutboxTarget];

/**
 * An order's outbox hold (`id = outbox-hold:<orderId>`, in the order's partition): written by the relay when a target
 * still failed for the order after `OUTBOX_RETRY_BUDGET`, so that the order stops holding the other orders of its
 * feed range. A cursor, not a copy: the events behind it are the order's stored events (its applied entry records)
 * above `deliveredThrough`, through `heldThrough`, so it stays the same size however long the hold lasts. Every write
 * of it goes under its ETag; the `outboxHoldRetry` timer releases it when its next attempt is due (see `releaseHold`).
 */
export interface OutboxHold {
  id: string;
  docType: 'outbox-hold';
  orderId: string;
  version: 3;
  /** The targets held: `webhook`, or both when `order-events` refused a record for itself (too large). */
  targets: OutboxTarget[];
  /** Per held target, the sequence it has every event through; a release sends it the stored events above. */
  deliveredThrough: Partial<Record<OutboxTarget, number>>;
  /** The highest sequence behind the hold: the relay raises it for each later record (a replay raises nothing). */
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
}
