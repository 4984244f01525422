import type { StoredEvent } from '../documents/entryRecord.js';
import type { EntryType } from '../entryTypes/registry.js';
import { CLOUDEVENTS_JSON, type OrderCloudEvent, type OrderEventType } from './orderCloudEvent.js';

/** The `order-events` message of a stored event, as a plain object (the adapter adds the trace context). */
export interface OrderEventMessage {
  /** The event's key: the idempotency key every layer downstream dedupes on. */
  messageId: string;
  /** The `orderId`: the subscriptions are session-enabled, so each order's events stay in sequence order. */
  sessionId: string;
  /** The CloudEvents `type`: a subscription's SQL filter selects events on it (`sys.Label`). */
  subject: OrderEventType;
  /** The `ledgerId` of the entry. */
  correlationId: string | undefined;
  contentType: typeof CLOUDEVENTS_JSON;
  applicationProperties: { sequence: number; type: EntryType };
  /** The structured CloudEvent as committed. Sent as an object. */
  body: OrderCloudEvent;
}

/** The `order-events` message for a stored event: its event and key as committed. */
export function orderEventMessage(record: StoredEvent): OrderEventMessage {
  return {
    messageId: record.key,
    sessionId: record.orderId,
    subject: record.event.type,
    correlationId: record.correlationId,
    applicationProperties: { sequence: record.sequence, type: record.type },
    contentType: CLOUDEVENTS_JSON,
    body: record.event,
  };
}
