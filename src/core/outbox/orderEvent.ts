import type { EntryType } from '../schemas/entry.js';
import type { BusinessState } from '../order/orderView.js';
import type { OutboxRecord } from '../documents/outboxRecord.js';

/** Body of an `order-events` message (and of the webhook POST): absolute state, so consumers can apply it as is. */
export interface OrderEventBody {
  orderId: string;
  sequence: number;
  entryId: string;
  /** The order's business state right after this entry (the GET view without `parked` and `rejected`). */
  order: BusinessState;
}

/** The `order-events` message of an outbox record, as a plain object (the adapter adds the trace context). */
export interface OrderEventMessage {
  /** The record id (`outbox:<entryId>`): the idempotency key every layer downstream dedupes on. */
  messageId: string;
  /** The `orderId`: `order-events` is session-enabled, so each order's events stay in sequence order. */
  sessionId: string;
  /** The `ledgerId` of the entry. */
  correlationId: string | undefined;
  contentType: 'application/json';
  applicationProperties: { sequence: number; type: EntryType };
  body: OrderEventBody;
}

/** The `order-events` message for an outbox record. */
export function orderEventMessage(record: Omit<OutboxRecord, 'ttl'>): OrderEventMessage {
  return {
    messageId: record.id,
    sessionId: record.orderId,
    correlationId: record.correlationId,
    contentType: 'application/json',
    applicationProperties: { sequence: record.sequence, type: record.type },
    body: { orderId: record.orderId, sequence: record.sequence, entryId: record.entryId, order: record.order },
  };
}
