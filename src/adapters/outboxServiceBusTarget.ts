/**
 * Delivers order events to the session-enabled `order-events` queue: `sessionId` = order, `messageId` = the
 * outbox record id (the queue's duplicate detection drops a re-delivery within its window), and the entry's W3C
 * trace context as the `Diagnostic-Id` / `traceparent` application properties.
 */
import type { ServiceBusMessage, ServiceBusSender } from '@azure/service-bus';
import type { DeliveryReceipt, OrderEventTarget, OutboundOrderEvent } from '../core/index.js';
import { traceProperties } from './telemetryTraceContext.js';
import { producerTraceparent } from './outboxTrace.js';

/** Name of this target in outbox records. */
export const ORDER_EVENTS_TARGET = 'order-events';

/** The Service Bus message of an order event. */
export function toOrderEventServiceBusMessage(event: OutboundOrderEvent, traceparent: string | undefined): ServiceBusMessage {
  return {
    messageId: event.messageId,
    sessionId: event.sessionId,
    ...(event.correlationId !== undefined && { correlationId: event.correlationId }),
    contentType: event.contentType,
    applicationProperties: { ...(traceparent === undefined ? {} : traceProperties(traceparent)), ...event.applicationProperties },
    body: event.body,
  };
}

/** {@link OrderEventTarget} on a sender for `order-events`. */
export class ServiceBusOrderEventTarget implements OrderEventTarget {
  readonly name = ORDER_EVENTS_TARGET;

  constructor(private readonly sender: ServiceBusSender) {}

  async deliver(event: OutboundOrderEvent, signal: AbortSignal): Promise<DeliveryReceipt> {
    await producerTraceparent(`${ORDER_EVENTS_TARGET} send`, event.traceparent, (traceparent) =>
      this.sender.sendMessages(toOrderEventServiceBusMessage(event, traceparent), { abortSignal: signal }),
    );
    return { target: this.name, detail: 'sent' };
  }
}
