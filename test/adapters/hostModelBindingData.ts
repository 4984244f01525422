import rhea from 'rhea';

/** What the test puts into one message the fake host delivers. */
export interface HostMessage {
  lockToken: string;
  messageId: string;
  sessionId: string;
  contentType?: string;
  /** Sent as an AMQP data section (binary): what Service Bus SDKs send by default. */
  body: Buffer;
  /** When set, sent instead of `body` as an AMQP value section (other AMQP clients do this). */
  valueBody?: unknown;
  applicationProperties?: Record<string, string | number>;
}

const marker = Buffer.from('x-opt-lock-token');

/** A lock-token GUID in .NET byte order (first three groups little-endian), as the host writes it. */
function guidBytes(guid: string): Buffer {
  const hex = guid.replace(/-/g, '');
  const bytes = Buffer.from(hex, 'hex');
  return Buffer.concat([
    bytes.subarray(0, 4).reverse(),
    bytes.subarray(4, 6).reverse(),
    bytes.subarray(6, 8).reverse(),
    bytes.subarray(8, 16),
  ]);
}

/**
 * The `ModelBindingData` the host sends for an `sdkBinding` Service Bus trigger: lock token bytes, the
 * `x-opt-lock-token` marker, then the AMQP-encoded message.
 */
export function hostModelBindingData(message: HostMessage): {
  content: Buffer;
  contentType: string;
  source: string;
  version: string;
} {
  const amqp = rhea.message.encode({
    message_id: message.messageId,
    group_id: message.sessionId,
    content_type: message.contentType,
    application_properties: message.applicationProperties ?? {},
    body: message.valueBody === undefined ? rhea.message.data_section(message.body) : message.valueBody,
  });
  return {
    content: Buffer.concat([guidBytes(message.lockToken), marker, amqp]),
    contentType: 'application/octet-stream',
    source: 'AzureServiceBusReceivedMessage',
    version: '1.0',
  };
}
