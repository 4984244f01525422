import type { OrderCloudEvent } from '../outbox/orderCloudEvent.js';
import type { BusinessState } from '../order/orderView.js';
import type { EntryType } from '../schemas/entry.js';

/** What every outbox record holds, whenever it was written. */
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

/**
 * A record written before events were fixed at commit: relayed exactly as the relay sent such records then (the
 * earlier envelope `{ orderId, sequence, entryId, order }` keyed `outbox:<entryId>`), never re-wrapped.
 * @internal
 */
export type EarlierOutboxRecord = OutboxRecordFields & {
  /** The business state right after this entry. */
  order: BusinessState;
};

/** Either kind of outbox record the change feed may bring. */
export type AnyOutboxRecord = OutboxRecord | EarlierOutboxRecord;

/** A record of either kind without its `ttl` (as a hold keeps it). */
export type WithoutTtl<T> = T extends unknown ? Omit<T, 'ttl'> : never;

/** The key targets dedupe an outbox record's event on: its stored key, or `outbox:<entryId>` for an earlier record. */
export function outboxRecordKey(record: WithoutTtl<AnyOutboxRecord>): string {
  return 'event' in record ? record.key : record.id;
}
