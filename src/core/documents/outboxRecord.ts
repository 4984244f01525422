import type { OrderCloudEvent } from '../outbox/orderCloudEvent.js';
import type { EntryType } from '../schemas/entry.js';

/** What every outbox record holds besides its event. */
interface OutboxRecordFields {
  id: string;
  docType: 'outbox';
  orderId: string;
  entryId: string;
  sequence: number;
  type: EntryType;
  /** `ledgerId` of the entry, for tracing. */
  correlationId: string | undefined;
  /**
   * W3C `traceparent` of the message that carried the entry, when it had one. Stored so that the relay, on any
   * instance and after any replay, continues the entry's trace on `order-events` and the webhook.
   */
  traceparent?: string;
  /** ISO time (ms) of the batch that applied the entry: the event's `time`, and the start of the relay's lag. */
  committedAt: string;
  /** Seconds to live (`OUTBOX_TTL`): the change feed has given it to the relay long before. */
  ttl: number;
}

/**
 * The transactional outbox record (`id = outbox:<entryId>`), written once in the batch that applies its entry and
 * never updated. It holds the event exactly as it leaves — a CloudEvent built at commit, and its key — so every relay
 * and every replay sends identical bytes (README, "Contracts and processing rules").
 */
export type OutboxRecord = OutboxRecordFields & {
  event: OrderCloudEvent;
  /** `evt-…`: `messageId` on `order-events`, `Idempotency-Key` and `webhook-id` on the webhook. */
  key: string;
};

/** An outbox record without its `ttl` (as a hold keeps it). */
export type WithoutTtl<T> = Omit<T, 'ttl'>;
