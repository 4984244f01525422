/**
 * Sends many messages to one queue in as few `sendMessages` calls as the batch capacity allows, in order, and
 * only once every batch has been built: a message that can never be sent is found before anything goes out.
 */
import type { ServiceBusMessage, ServiceBusMessageBatch, ServiceBusSender } from '@azure/service-bus';
import type { OutboundOrderEvent } from '../core/outbox/outboxPorts.js';
import type { PlannedEntryMessage } from '../core/splitter/planLedger.js';
import { traceProperties } from './telemetryTraceContext.js';

/** Options of {@link sendInBatches}. */
export interface SendInBatchesOptions {
  /** Runs before each batch is sent (the splitter renews the ledger's lock there). @default none */
  beforeSend?: (batchIndex: number) => Promise<void>;
  /** Cap of a batch below the link's maximum message size. @default the link's maximum */
  maxSizeInBytes?: number;
  /** Cancels building and sending the batches. @default none */
  abortSignal?: AbortSignal;
}

/** What {@link sendInBatches} did. */
export interface SendInBatchesResult {
  /** Messages sent. */
  messages: number;
  /** `sendMessages` calls made (one per batch). */
  batches: number;
}

/** A message larger than an empty batch can hold: it can never be sent. Thrown before anything was sent. */
export class MessageTooLargeError extends Error {
  override readonly name = 'MessageTooLargeError';
  readonly code = 'MessageTooLarge';

  constructor(
    readonly messageId: string | undefined,
    readonly maxSizeInBytes: number,
    /** Position of the message in the list given to {@link sendInBatches}. */
    readonly index: number,
  ) {
    super(`Message ${String(messageId)} (#${index}) does not fit in an empty batch (${maxSizeInBytes} bytes)`);
  }
}

/**
 * Packs every message into batches with `tryAddMessage` (a batch is closed when the next message does not fit),
 * then sends the batches one after another, so the queue receives the messages in the order given (each
 * session's FIFO follows from it).
 *
 * All batches are built before the first send: a message that does not fit even an empty batch rejects with
 * {@link MessageTooLargeError} and nothing is sent — so such a list is never half delivered. A failed send
 * rejects at once: what was sent stays sent, and a retry of the whole list is harmless when the queue has
 * duplicate detection and the message ids are deterministic.
 */
export async function sendInBatches(
  sender: ServiceBusSender,
  messages: readonly ServiceBusMessage[],
  { beforeSend, maxSizeInBytes, abortSignal }: SendInBatchesOptions = {},
): Promise<SendInBatchesResult> {
  const newBatch = () => sender.createMessageBatch({ maxSizeInBytes, abortSignal });
  const batches: ServiceBusMessageBatch[] = [];
  let batch = await newBatch();
  for (const [index, message] of messages.entries()) {
    if (batch.tryAddMessage(message)) continue;
    if (batch.count > 0) {
      batches.push(batch);
      batch = await newBatch();
      if (batch.tryAddMessage(message)) continue;
    }
    throw new MessageTooLargeError(message.messageId?.toString(), batch.maxSizeInBytes, index);
  }
  if (batch.count > 0) batches.push(batch);
  for (const [index, ready] of batches.entries()) {
    await beforeSend?.(index);
    await sender.sendMessages(ready, { abortSignal });
  }
  return { messages: messages.length, batches: batches.length };
}

/**
 * The Service Bus message of a planned `orders` entry or an `order-events` event (docs/contracts.md), with the W3C
 * trace context `traceparent` (when known) as the `Diagnostic-Id` / `traceparent` application properties.
 */
export function serviceBusMessageOf(
  message: PlannedEntryMessage | OutboundOrderEvent,
  traceparent: string | undefined,
): ServiceBusMessage {
  return {
    messageId: message.messageId,
    sessionId: message.sessionId,
    ...('subject' in message && { subject: message.subject }),
    correlationId: message.correlationId,
    contentType: message.contentType,
    applicationProperties: {
      ...(traceparent !== undefined && traceProperties(traceparent)),
      ...message.applicationProperties,
    },
    body: message.body,
  };
}
