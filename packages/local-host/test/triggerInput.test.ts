import { describe, expect, it } from 'vitest';
import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { toExtensionMessage, toHostBody, toTriggerMetadata } from '../src/servicebus/triggerInput.js';

// Shaped as a receiver created with skipParsingBodyAsJson delivers it: the data section as raw bytes.
const received = (body: unknown, contentType?: string): ServiceBusReceivedMessage => ({
  _rawAmqpMessage: { body, bodyType: 'data' },
  body,
  contentType,
  messageId: 'e-1:abc',
  sessionId: 'o-1',
  correlationId: 'L-1',
  deliveryCount: 0,
  lockToken: '00000000-0000-0000-0000-000000000001',
  enqueuedTimeUtc: new Date('2026-11-30T10:00:00Z'),
  applicationProperties: { sequence: 2, TenantId: 't' },
  state: 'active',
});

describe('Service Bus trigger input', () => {
  it('gives sdkBinding handlers the extension body: JSON only for application/json, else text', () => {
    const json = Buffer.from('{"entryId":"e-1"}');
    expect(toExtensionMessage(received(json, 'application/json')).body).toEqual({ entryId: 'e-1' });
    expect(toExtensionMessage(received(json, 'text/plain')).body).toBe('{"entryId":"e-1"}');
    expect(toExtensionMessage(received(Buffer.from('{oops'), 'application/json')).body).toBe('{oops');
    expect(toExtensionMessage(received(json)).lockToken).toBe('00000000-0000-0000-0000-000000000001');
  });

  it('gives plain handlers the worker body: parsed JSON when it parses, else the string', () => {
    expect(toHostBody(received(Buffer.from('{"a":1}')))).toEqual({ a: 1 });
    expect(toHostBody(received(Buffer.from('not json')))).toBe('not json');
  });

  it('exposes lower-camel-cased trigger metadata with the host delivery count', () => {
    expect(toTriggerMetadata(received(Buffer.from('x')))).toMatchObject({
      messageId: 'e-1:abc',
      sessionId: 'o-1',
      correlationId: 'L-1',
      deliveryCount: 1,
      enqueuedTimeUtc: '2026-11-30T10:00:00.000Z',
      applicationProperties: { sequence: 2, tenantId: 't' },
      userProperties: { sequence: 2, tenantId: 't' },
    });
  });
});
