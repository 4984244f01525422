/**
 * Order processor: `orders` session queue → the core's processor (rules 1–8, 10, 11), one message at a time.
 */
import { normaliseTriggerInput, releaseSession, settlementFor } from '../adapters/functionsSettlement.js';
import { dispositionOf, inMessageSpan, settledAs } from '../adapters/telemetryTraceContext.js';
import { errorMessage, messageTraceparent, type ProcessResult } from '../core/index.js';
import { QueueName } from '../core/queueNames.js';
import { defineFunction, SETTLED_BY_HANDLER, type AppContext } from './appContext.js';

/**
 * Handles one `orders` message (`sdkBinding` input `{ messages, actions }`): normalises it, lets the core decide and
 * settle it through the host's actions, and returns what happened. The order documents the core remembers live in
 * the app context's order cache (LRU keyed by order = session, kept across invocations), so the next message of the same
 * session applies with one Cosmos round trip. When the core says so (the order is deleted, or the splitter marked the
 * order's last entry of its ledger) the session is released, so the slot takes the next order at once instead of
 * idling `sessionIdleTimeout` on this one. Its stored events leave through the relay (the change feed of `orders`).
 * @internal
 */
export async function orderProcessor(app: AppContext, input: unknown): Promise<ProcessResult> {
  const { message, body, actions } = normaliseTriggerInput(input);
  // The core reads the same trace context and stores it with the entry's documents for the outbox.
  const traceparent = messageTraceparent(message.applicationProperties);
  const span = {
    queue: QueueName.Orders,
    messageId: message.messageId,
    sessionId: message.sessionId,
    deliveryCount: message.deliveryCount,
    traceparent,
  };
  const result = await inMessageSpan(span, (s) =>
    app.processor
      .process(
        {
          body,
          messageId: message.messageId === undefined ? undefined : String(message.messageId),
          sessionId: message.sessionId,
          correlationId: message.correlationId === undefined ? undefined : String(message.correlationId),
          applicationProperties: message.applicationProperties,
          deliveryCount: message.deliveryCount,
        },
        { settlement: settlementFor(actions, message), cache: app.orderCache },
      )
      .then((r) => (settledAs(s, dispositionOf(r.outcome)), r)),
  );
  app.metrics.processed(result);
  if (result.releaseSession && message.sessionId !== undefined) {
    // Nothing is lost if this fails: the session then idles out as usual.
    await releaseSession(actions, message.sessionId).catch((error: unknown) =>
      app.telemetry.log('warn', 'releasing the session failed', {
        orderId: result.orderId,
        description: errorMessage(error),
      }),
    );
  }
  return result;
}

/** The function: one `orders` session at a time per slot, settled by the handler. */
export const orderProcessorFunction = defineFunction('serviceBusQueue', 'orderProcessor', orderProcessor, {
  ...SETTLED_BY_HANDLER,
  queueName: QueueName.Orders,
  isSessionsEnabled: true,
});
