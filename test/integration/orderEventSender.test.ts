import { ServiceBusClient } from '@azure/service-bus';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start } from '@ledger-convoy/servicebus-emulator';
import type { RunningEmulator } from '@ledger-convoy/servicebus-emulator';
import { ServiceBusOrderEventSender } from '../../src/adapters/outboxServiceBusSender.js';
import { ORDER_EVENTS_TOPIC, OutboxErrorCode } from '../../src/core/index.js';
import { peekEverything } from '../support/serviceBusWaits.js';
import { serviceBusConfig } from './support/stack.js';

let emulator: RunningEmulator;
let client: ServiceBusClient;

beforeAll(async () => {
  // A namespace as an entity file from before the topic declares it: the queues only.
  const config = serviceBusConfig();
  config.UserConfig.Namespaces[0]!.Topics = [];
  emulator = await start({ port: 0, adminPort: 0, config });
  client = new ServiceBusClient(emulator.connectionString, { retryOptions: { maxRetries: 0, timeoutInMs: 5_000 } });
});

afterAll(async () => {
  await client?.close();
  await emulator?.close();
});

describe('the order-event sender', () => {
  it('says which entity is missing when the namespace has no order-events topic', async () => {
    // Prepare
    const sender = new ServiceBusOrderEventSender(client.createSender(ORDER_EVENTS_TOPIC));
    const event = {
      messageId: 'evt-1',
      sessionId: 'o-1',
      subject: 'convoy.order.created' as const,
      correlationId: undefined,
      contentType: 'application/cloudevents+json' as const,
      applicationProperties: { sequence: 1, type: 'OrderCreated' as const },
      body: {} as never,
      traceparent: undefined,
    };
    // Act
    const sending = sender.send([event], AbortSignal.timeout(10_000));
    // Assess: an infrastructure failure of the whole batch, naming the topic and where it is declared.
    await expect(sending).rejects.toMatchObject({
      code: OutboxErrorCode.TransportFailed,
      message: expect.stringContaining(
        'the Service Bus topic order-events does not exist (infra/servicebus.config.json and infra/app/serviceBus.bicep declare it)',
      ),
    });
  });
});

describe('the order-event sender on a namespace with the topic', () => {
  it('fails the order, sending none of its events, when one of them is too large for any batch', async () => {
    // Prepare
    const withTopic = await start({ port: 0, adminPort: 0, config: serviceBusConfig() });
    const topicClient = new ServiceBusClient(withTopic.connectionString, {
      retryOptions: { maxRetries: 0, timeoutInMs: 5_000 },
    });
    const event = (messageId: string, sequence: number, body: object) => ({
      messageId,
      sessionId: 'o-big',
      subject: 'convoy.order.created' as const,
      correlationId: undefined,
      contentType: 'application/cloudevents+json' as const,
      applicationProperties: { sequence, type: 'OrderCreated' as const },
      body: body as never,
      traceparent: undefined,
    });
    try {
      const sender = new ServiceBusOrderEventSender(topicClient.createSender(ORDER_EVENTS_TOPIC));
      // Act
      const sending = sender.send(
        [event('evt-small', 1, {}), event('evt-huge', 2, { pad: 'x'.repeat(400_000) })],
        AbortSignal.timeout(10_000),
      );
      // Assess: the order's failure, naming the event; the small one before it did not go out either.
      await expect(sending).rejects.toMatchObject({
        code: OutboxErrorCode.TargetRejected,
        message: expect.stringContaining('evt-huge'),
      });
      const receiver = await topicClient.acceptSession(ORDER_EVENTS_TOPIC, 'all', 'o-big');
      expect(await peekEverything(receiver)).toEqual([]);
      await receiver.close();
    } finally {
      await topicClient.close();
      await withTopic.close();
    }
  });
});
