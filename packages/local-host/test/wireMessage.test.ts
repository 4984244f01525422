import { isDeepStrictEqual } from 'node:util';
import Long from 'long';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiveExactly } from '../../../test/support/serviceBusWaits.js';
import { toExtensionMessage, toTriggerMetadata } from '../src/servicebus/triggerInput.js';
import { fromWireMessage, toWireMessage } from '../src/servicebus/wireMessage.js';
import { startServiceBusFixture, testQueues } from './support/serviceBusFixture.js';

let fixture: Awaited<ReturnType<typeof startServiceBusFixture>>;
beforeAll(async () => {
  fixture = await startServiceBusFixture();
});
afterAll(async () => {
  await fixture?.close();
});

describe('a received message crossing from the trigger thread to the main thread', () => {
  it('arrives as the SDK delivered it: Buffers, Dates, a Long sequence number, the raw body section', async () => {
    // Prepare: a message with every kind of value a function reads, received as the trigger thread receives it.
    const sender = fixture.client.createSender(testQueues.drain);
    await sender.sendMessages({
      body: { entryId: 'e-1', amount: 5 },
      contentType: 'application/json',
      messageId: 'e-1:0000',
      correlationId: 'L-1',
      subject: 'entry',
      timeToLive: 60_000,
      applicationProperties: { sequence: 3, at: new Date('2026-12-01T00:00:00Z'), TenantId: 't' },
    });
    await sender.close();
    const receiver = fixture.client.createReceiver(testQueues.drain, { skipParsingBodyAsJson: true });
    const [received] = await receiveExactly(receiver, 1, 'the message');
    const message = received!;

    // Act: across a port, as the thread posts it.
    const rebuilt = fromWireMessage(structuredClone(toWireMessage(message)));

    // Assess: what the function and its metadata are built from is the SDK's message, prototypes included.
    // The sequence number is a Long of the `long` package's ES module, the SDK's of its CommonJS one: equal values
    // of one version, two classes.
    const { delivery: _delivery, sequenceNumber, ...delivered } = message as typeof message & { delivery: unknown };
    const { sequenceNumber: rebuiltSequence, ...rest } = rebuilt;
    expect(isDeepStrictEqual(rest, delivered)).toBe(true);
    expect(Buffer.isBuffer(rebuilt.body)).toBe(true);
    expect(Long.isLong(rebuiltSequence) && rebuiltSequence.equals(sequenceNumber!)).toBe(true);
    expect(rebuiltSequence?.toNumber()).toBe(sequenceNumber?.toNumber());
    const { sequenceNumber: _s, ...extension } = toExtensionMessage(rebuilt);
    const { sequenceNumber: _t, ...original } = toExtensionMessage(message);
    expect(isDeepStrictEqual(extension, original)).toBe(true);
    expect(toTriggerMetadata(rebuilt)).toEqual(toTriggerMetadata(message));
    await receiver.completeMessage(message);
    await receiver.close();
  });
});
