/**
 * Sends many messages to one queue in as few `sendMessages` calls as the batch capacity allows, in order.
 */
import type { ServiceBusMessage, ServiceBusSender } from '@azure/service-bus';
import type { PlannedEntryMessage } from '../core/splitter/planLedger.js';

/** Options of {@link sendInBatches}. */
export interface SendInBatchesOptions {
  /** Runs before each batch is sent (the splitter renews the ledger's lock there). @default none */
  beforeSend?: (batchIndex: number) => Promise<void>;
  /** Cap of a batch below the link's maximum message size. @default the link's maximum */
  maxSizeInBytes?: number;
}

/** What {@link sendInBatches} did. */
export interface SendInBatchesResult {
  /** Messages sent. */
  messages: number;
  /** `sendMessages` calls made (one per batch). */
  batches: number;
}

/** A message larger than an empty batch can hold: it can never be sent. */
export class MessageTooLargeError extends Error {
  override readonly name = 'MessageTooLargeError';
  readonly code = 'MessageTooLarge';

  constructor(
    readonly messageId: string | undefined,
    readonly maxSizeInBytes: number,
  ) {
    super(`Message ${String(messageId)} does not fit in an empty batch (${maxSizeInBytes} bytes)`);
  }
}

/**
 * Fills a batch with `tryAddMessage` until it is full, sends it, and goes on with a new one; batches go out one
 * after another, so the queue receives the messages in the order given (each session's FIFO follows from it).
 * Rejects on the first failed send: what was sent stays sent, and a retry of the whole list is harmless when the
 * queue has duplicate detection and the message ids are deterministic.
 */
export async function sendInBatches(
  sender: ServiceBusSender,
  messages: readonly ServiceBusMessage[],
  options: SendInBatchesOptions = {},
): Promise<SendInBatchesResult> {
  let batches = 0;
  const newBatch = () => sender.createMessageBatch(options.maxSizeInBytes === undefined ? undefined : { maxSizeInBytes: options.maxSizeInBytes });
  let batch = await newBatch();
  const flush = async () => {
    await options.beforeSend?.(batches);
    await sender.sendMessages(batch);
    batches++;
  };
  for (const message of messages) {
    if (batch.tryAddMessage(message)) continue;
    if (batch.count === 0) throw new MessageTooLargeError(messageIdOf(message), batch.maxSizeInBytes);
    await flush();
    batch = await newBatch();
    if (!batch.tryAddMessage(message)) throw new MessageTooLargeError(messageIdOf(message), batch.maxSizeInBytes);
  }
  if (batch.count > 0) await flush();
  return { messages: messages.length, batches };
}

function messageIdOf(message: ServiceBusMessage): string | undefined {
  return message.messageId === undefined ? undefined : String(message.messageId);
}

/**
 * The `orders` message of one planned entry (design: "Order entry message"), with the ledger's trace context
 * (`Diagnostic-Id` / `traceparent`) added to its application properties.
 */
export function toOrderEntryMessage(planned: PlannedEntryMessage, traceProperties: Readonly<Record<string, string>> = {}): ServiceBusMessage {
  return {
    messageId: planned.messageId,
    sessionId: planned.sessionId,
    correlationId: planned.correlationId,
    contentType: planned.contentType,
    applicationProperties: { ...traceProperties, sequence: planned.applicationProperties.sequence, type: planned.applicationProperties.type },
    body: planned.body,
  };
}
