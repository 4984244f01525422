import type { ServiceBusClient, ServiceBusReceivedMessage } from '@azure/service-bus';

/** `@azure/core-amqp`'s `AmqpAnnotatedMessage`, which `sendMessages` accepts (the package does not re-export it). */
type AmqpAnnotatedMessage = ServiceBusReceivedMessage['_rawAmqpMessage'];

/**
 * A message body exactly as a host may hand it to a function: an already parsed value, a string, or bytes. The
 * first two travel in an AMQP value section and the bytes in a data section, so a receiver created with
 * `skipParsingBodyAsJson` delivers each in its own shape (the SDK's default JSON-decoding of data sections would
 * turn valid bytes into an object).
 */
export type RawBody =
  { as: 'object'; value: unknown } | { as: 'text'; text: string } | { as: 'bytes'; bytes: Uint8Array };

/** An already parsed body. */
export const asObject = (value: unknown): RawBody => ({ as: 'object', value });
/** A string body (JSON text or not). */
export const asText = (text: string): RawBody => ({ as: 'text', text });
/** A bytes body: UTF-8 of `text`, or the bytes given. */
export const asBytes = (content: string | Uint8Array): RawBody => ({
  as: 'bytes',
  bytes: typeof content === 'string' ? Buffer.from(content, 'utf8') : content,
});

/** One message to send to a queue as a producer would, unvalidated. */
export interface RawMessage {
  messageId: string;
  body: RawBody;
  sessionId?: string;
  correlationId?: string;
  applicationProperties?: Record<string, number | string | boolean>;
}

/** The AMQP message for `raw`, with `contentType: application/json` as the contract asks of producers. */
export function toAmqp(raw: RawMessage): AmqpAnnotatedMessage {
  const { body } = raw;
  return {
    bodyType: body.as === 'bytes' ? 'data' : 'value',
    body: body.as === 'bytes' ? Buffer.from(body.bytes) : body.as === 'text' ? body.text : body.value,
    properties: {
      messageId: raw.messageId,
      groupId: raw.sessionId,
      correlationId: raw.correlationId,
      contentType: 'application/json',
    },
    applicationProperties: raw.applicationProperties,
  };
}

/** Sends `messages` to `queue` one by one, in order (the session keeps their order). */
export async function sendRaw(bus: ServiceBusClient, queue: string, messages: readonly RawMessage[]): Promise<void> {
  const sender = bus.createSender(queue);
  try {
    for (const message of messages) await sender.sendMessages(toAmqp(message));
  } finally {
    await sender.close();
  }
}
