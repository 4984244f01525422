import { ServiceBusClient } from '@azure/service-bus';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start } from '@ledger-convoy/servicebus-emulator';
import type { RunningEmulator } from '@ledger-convoy/servicebus-emulator';
import { ServiceBusOrderEventSender } from '../../src/adapters/outboxServiceBusSender.js';
import { ORDER_EVENTS_TOPIC, OutboxErrorCode } from '../../src/core/index.js';
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
