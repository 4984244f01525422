import type { BusinessState } from '../order/orderView.js';
import type { EntryType } from '../schemas/entry.js';

/**
 * The transactional outbox record (`id = outbox:<entryId>`), written once in the batch that applies its entry and
 * never updated: the relay reads it from the change feed of `orders` and sends `order` to `order-events` (and the
 * webhook) with the record id as `messageId` / `Idempotency-Key`, the key every target dedupes on. It expires
 * after `OUTBOX_TTL`; an order whose target keeps failing has its records copied into its hold first.
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
   * W3C `traceparent` of the message that carried the entry, when it had one. Stored so that the relay, on any
   * instance and after any replay, continues the entry's trace on `order-events` and the webhook.
   */
  traceparent?: string;
  /** The business state right after this entry. */
  order: BusinessState;
  /** ISO time (ms) of the batch that applied the entry: the start of the event latency and of the relay's lag. */
  committedAt: string;
  /** Seconds to live (`OUTBOX_TTL`): the change feed has given it to the relay long before. */
  ttl: number;
}
