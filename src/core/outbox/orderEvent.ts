import type { StoredEvent } from '../documents/entryRecord.js';
import { CLOUDEVENTS_JSON } from './orderCloudEvent.js';
import type { OutboundOrderEvent } from './outboxPorts.js';

/** What goes to `order-events` (and the webhook) for a stored event: its event and key as committed, and its trace. */
export function outboundEvent(record: StoredEvent): OutboundOrderEvent {
  return {
    messageId: record.key,
    sessionId: record.orderId,
    subject: record.event.type,
    correlationId: record.correlationId,
    applicationProperties: { sequence: record.sequence, type: record.type },
    contentType: CLOUDEVENTS_JSON,
    body: record.event,
    traceparent: record.traceparent,
  };
}
