import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import type { TriggerMetadata } from '@azure/functions';

// Receivers are created with skipParsingBodyAsJson, so a data-section body arrives as the raw bytes and each
// host shape below is derived from the same bytes the real host would see.

/**
 * The message an `sdkBinding` handler receives, shaped as `@azure/functions-extensions-servicebus` 0.2.0-preview
 * builds it: the body of a data section is decoded as UTF-8 text and JSON-parsed only when `contentType` is
 * `application/json` (falling back to the text); other sections pass through.
 */
export function toExtensionMessage(message: ServiceBusReceivedMessage): ServiceBusReceivedMessage {
  return {
    body: extensionBody(message.body, message.contentType),
    messageId: message.messageId,
    correlationId: message.correlationId,
    contentType: message.contentType,
    subject: message.subject,
    to: message.to,
    replyTo: message.replyTo,
    replyToSessionId: message.replyToSessionId,
    sessionId: message.sessionId,
    timeToLive: message.timeToLive,
    applicationProperties: message.applicationProperties ?? {},
    deliveryCount: message.deliveryCount ?? 0,
    lockToken: message.lockToken,
    _rawAmqpMessage: message._rawAmqpMessage,
    enqueuedTimeUtc: message.enqueuedTimeUtc,
    sequenceNumber: message.sequenceNumber,
    deadLetterReason: message.deadLetterReason,
    deadLetterErrorDescription: message.deadLetterErrorDescription,
    state: 'active',
  };
}

/**
 * The first argument of a plain (non-`sdkBinding`) Service Bus handler: the host hands the body over as text and
 * the Node worker JSON-parses it when it can, else keeps the string.
 */
export function toHostBody(message: ServiceBusReceivedMessage): unknown {
  if (!Buffer.isBuffer(message.body)) return message.body;
  const text = message.body.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * Trigger metadata as the Node worker exposes it for a Service Bus message: the host's names, lower-camel-cased
 * recursively (`TenantId` → `tenantId`), dates as ISO strings and the .NET delivery count (first delivery = 1).
 */
export function toTriggerMetadata(message: ServiceBusReceivedMessage): TriggerMetadata {
  const properties = camelCaseKeys(message.applicationProperties ?? {});
  const metadata: TriggerMetadata = {
    messageId: message.messageId,
    sessionId: message.sessionId,
    correlationId: message.correlationId,
    contentType: message.contentType,
    subject: message.subject,
    label: message.subject,
    to: message.to,
    replyTo: message.replyTo,
    deliveryCount: (message.deliveryCount ?? 0) + 1,
    sequenceNumber: message.sequenceNumber?.toNumber(),
    enqueuedTimeUtc: message.enqueuedTimeUtc?.toISOString(),
    expiresAtUtc: message.expiresAtUtc?.toISOString(),
    lockToken: message.lockToken,
    applicationProperties: properties,
    userProperties: properties,
  };
  for (const key of Object.keys(metadata)) if (metadata[key] === undefined) delete metadata[key];
  return metadata;
}

function extensionBody(body: unknown, contentType: string | undefined): unknown {
  if (!Buffer.isBuffer(body)) return body;
  const text = body.toString('utf8');
  if (contentType !== 'application/json') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function camelCaseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelCaseKeys);
  if (typeof value !== 'object' || value === null || value instanceof Date || Buffer.isBuffer(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [key.charAt(0).toLowerCase() + key.slice(1), camelCaseKeys(inner)]),
  );
}
