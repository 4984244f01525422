import type { BusinessState } from '../order/orderView.js';
import type { EntryType } from '../schemas/entry.js';

/** Dispatch state of an outbox record (two-phase: claimed `in-progress`, then `completed`). */
export const OutboxStatus = { Pending: 'pending', InProgress: 'in-progress', Completed: 'completed', Failed: 'failed' } as const;
/** One of {@link OutboxStatus}. */
export type OutboxStatus = (typeof OutboxStatus)[keyof typeof OutboxStatus];

/**
 * The transactional outbox record (`id = outbox:<entryId>`), written in the same batch as the entry it
 * reports. The dispatcher sends `order` to `order-events` with `messageId` = the record id `outbox:<entryId>`
 * (the idempotency key every target dedupes on).
 */
export interface OutboxRecord {
  id: string;
  docType: 'outbox';
  orderId: string;
  entryId: string;
  sequence: number;
  type: EntryType;
  /** `ledgerId` of the entry, for tracing. */
  correlationId: string | undefined;
  /**
   * W3C `traceparent` of the message that carried the entry, when it had one. Stored so that any dispatcher,
   * at any time, continues the entry's trace on `order-events` and the webhook.
   */
  traceparent?: string;
  /** The business state right after this entry. */
  order: BusinessState;
  status: OutboxStatus;
  /** Dispatch attempts started so far. */
  attempts: number;
  createdAt: string;
  /** While `in-progress`: when the claim lapses and another dispatcher may take over. */
  leaseUntil?: string;
  /** The last dispatch failure, for operators. */
  lastError?: string;
  completedAt?: string;
  /** ISO time (ms) of the batch that applied the entry. */
  committedAt?: string;
  /** Seconds to live. */
  ttl?: number;
}
