/**
 * Sends order events to the `order-events` topic: `sessionId` = order (its subscriptions are session-enabled),
 * `messageId` = the event's key (the topic's duplicate detection drops a re-send within its window), `subject` = the
 * CloudEvents `type` (what subscriptions filter on, `sys.Label`), and the entry's W3C trace context
 * as the `Diagnostic-Id` / `traceparent` application properties. One order's events go in as few batch sends as
 * they fit in (256 KB each on the Standard tier), in sequence order.
 */
import { isServiceBusError, type ServiceBusSender } from '@azure/service-bus';
import {
  ORDER_EVENTS_TOPIC,
  OutboxDeliveryError,
  OutboxErrorCode,
  errorMessage,
  type OrderEventSender,
  type OutboundOrderEvent,
} from '../core/index.js';
import { MessageTooLargeError, sendInBatches, serviceBusMessageOf } from './serviceBusBatchSender.js';
import { inSendSpan } from './telemetryTraceContext.js';

/** {@link OrderEventSender} on a sender for `order-events`. */
export class ServiceBusOrderEventSender implements OrderEventSender {
  constructor(private readonly sender: ServiceBusSender) {}

  async send(events: readonly OutboundOrderEvent[], signal: AbortSignal): Promise<void> {
    // Each message gets its own producer span, child of its entry's trace.
    const messages = await Promise.all(
      events.map((event) =>
        inSendSpan(
          ORDER_EVENTS_TOPIC,
          { messageId: event.messageId, sessionId: event.sessionId },
          event.traceparent,
          async (tp) => serviceBusMessageOf(event, tp),
        ),
      ),
    );
    try {
      await sendInBatches(this.sender, messages, { abortSignal: signal });
    } catch (error) {
      throw toDeliveryError(error);
    }
  }
}

/**
 * Only a message Service Bus refuses for what it is fails the order; anything else (unreachable, busy,
 * unauthorised, the queue missing, a timeout) is the relay's own infrastructure, and fails the whole batch.
 */
function toDeliveryError(error: unknown): OutboxDeliveryError {
  const message = errorMessage(error);
  // Too large for a batch, as the SDK measures it before sending or as the broker answers.
  if (error instanceof MessageTooLargeError || (isServiceBusError(error) && error.code === 'MessageSizeExceeded')) {
    return new OutboxDeliveryError(OutboxErrorCode.TargetRejected, `order-events refused the batch: ${message}`, {
      cause: error,
    });
  }
  if (isServiceBusError(error) && error.code === 'MessagingEntityNotFound') {
    // Said plainly: a namespace deployed or emulated without the topic (or with order-events still a queue).
    return new OutboxDeliveryError(
      OutboxErrorCode.TransportFailed,
      `order-events send failed: the Service Bus topic ${ORDER_EVENTS_TOPIC} does not exist (infra/servicebus.config.json and infra/app/serviceBus.bicep declare it): ${message}`,
      { cause: error },
    );
  }
  const code = isServiceBusError(error) ? error.code : error instanceof Error ? error.name : 'unknown';
  return new OutboxDeliveryError(OutboxErrorCode.TransportFailed, `order-events send failed (${code}): ${message}`, {
    cause: error,
  });
}
