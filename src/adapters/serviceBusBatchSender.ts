/**
 * Sends many messages to one queue in as few `sendMessages` calls as the batch capacity allows, in order, and
 * only once every batch has been built: a message that can never be sent is found before anything goes out.
 */
import type { ServiceBusMessage, ServiceBusMessageBatch, ServiceBusSender } from '@azure/service-bus';
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
  options: SendInBatchesOptions = {},
): Promise<SendInBatchesResult> {
  const batches = await packBatches(sender, messages, options.maxSizeInBytes);
  for (const [index, batch] of batches.entries()) {
    await options.beforeSend?.(index);
    await sender.sendMessages(batch);
  }
  return { messages: messages.length, batches: batches.length };
}

/**
 * The batches {@link sendInBatches} sends, in order; none is empty.
 * @throws MessageTooLargeError for the first message that does not fit an empty batch.
 */
async function packBatches(
  sender: ServiceBusSender,
  messages: readonly ServiceBusMessage[],
  maxSizeInBytes?: number,
): Promise<ServiceBusMessageBatch[]> {
  const newBatch = () => sender.createMessageBatch(maxSizeInBytes === undefined ? undefined : { maxSizeInBytes });
  const batches: ServiceBusMessageBatch[] = [];
  let batch = await newBatch();
  for (const [index, message] of messages.entries()) {
    if (batch.tryAddMessage(message)) continue;
    if (batch.count > 0) {
      batches.push(batch);
      batch = await newBatch();
      if (batch.tryAddMessage(message)) continue;
    }
    throw new MessageTooLargeError(messageIdOf(message), batch.maxSizeInBytes, index);
  }
  if (batch.count > 0) batches.push(batch);
  return batches;
}

function messageIdOf(message: ServiceBusMessage): string | undefined {
  return message.messageId === undefined ? undefined : String(message.messageId);
}

/**
 * The `orders` message of one planned entry (docs/contracts.md), with the ledger's trace context
 * (`Diagnostic-Id` / `traceparent`) added to its application properties.
 */
export function toOrderEntryMessage(
  planned: PlannedEntryMessage,
  traceProperties: Readonly<Record<string, string>> = {},
): ServiceBusMessage {
  return {
    messageId: planned.messageId,
    sessionId: planned.sessionId,
    correlationId: planned.correlationId,
    contentType: planned.contentType,
    applicationProperties: { ...traceProperties, ...planned.applicationProperties },
    body: planned.body,
  };
}
