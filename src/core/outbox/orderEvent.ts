import { outboxRecordKey, type AnyOutboxRecord, type WithoutTtl } from '../documents/outboxRecord.js';
import type { BusinessState } from '../order/orderView.js';
import type { EntryType } from '../schemas/entry.js';
import { CLOUDEVENTS_JSON, type OrderCloudEvent } from './orderCloudEvent.js';

/** The body records written before events were fixed at commit still carry: absolute state, keyed `outbox:<entryId>`. */
interface OrderEventBody {
  orderId: string;
  sequence: number;
  entryId: string;
  /** The order's business state right after this entry (the GET view without `parked` and `rejected`). */
  order: BusinessState;
}

/** The `order-events` message of an outbox record, as a plain object (the adapter adds the trace context). */
export interface OrderEventMessage {
  /** The event's key: the idempotency key every layer downstream dedupes on. */
  messageId: string;
  /** The `orderId`: `order-events` is session-enabled, so each order's events stay in sequence order. */
  sessionId: string;
  /** The `ledgerId` of the entry. */
  correlationId: string | undefined;
  contentType: typeof CLOUDEVENTS_JSON | 'application/json';
  applicationProperties: { sequence: number; type: EntryType };
  /** The structured CloudEvent as committed; for an earlier record, its earlier body. Sent as an object. */
  body: OrderCloudEvent | OrderEventBody;
}

/** The `order-events` message for an outbox record: its event and key as committed, or an earlier record as written. */
export function orderEventMessage(record: WithoutTtl<AnyOutboxRecord>): OrderEventMessage {
  const common = { sessionId: record.orderId, correlationId: record.correlationId, applicationProperties: { sequence: record.sequence, type: record.type } };
  if ('event' in record) return { ...common, messageId: outboxRecordKey(record), contentType: CLOUDEVENTS_JSON, body: record.event };
  return {
    ...common,
    messageId: outboxRecordKey(record),
    contentType: 'application/json',
    body: { orderId: record.orderId, sequence: record.sequence, entryId: record.entryId, order: record.order },
  };
}
