import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceBusClient } from '@azure/service-bus';
import { start, type RunningEmulator } from '@ledger-convoy/servicebus-emulator';
import { resolveCliSettings, type CliSettings } from '../src/settings.js';
import { receiveExactly } from '../../../test/support/serviceBusWaits.js';

/** The queues and the topic the CLI uses, with short test timings. */
export const testConfig = {
  UserConfig: {
    Namespaces: [
      {
        Name: 'clitest',
        Queues: ['ledger', 'orders'].map((name) => ({
          Name: name,
          Properties: {
            DeadLetteringOnMessageExpiration: true,
            DefaultMessageTimeToLive: 'PT1H',
            DuplicateDetectionHistoryTimeWindow: 'PT5M',
            LockDuration: 'PT5S',
            MaxDeliveryCount: 3,
            RequiresDuplicateDetection: true,
            RequiresSession: name === 'orders',
          },
        })),
        Topics: [
          {
            Name: 'order-events',
            Properties: { DefaultMessageTimeToLive: 'PT1H', RequiresDuplicateDetection: true },
            Subscriptions: [
              {
                Name: 'all',
                Properties: { LockDuration: 'PT5S', MaxDeliveryCount: 3, RequiresSession: true },
                Rules: [],
              },
            ],
          },
        ],
      },
    ],
    Logging: { Type: 'Console' },
  },
};

/** A running emulator, an SDK client and the CLI settings pointing at it. */
export interface CliTestBus {
  emulator: RunningEmulator;
  client: ServiceBusClient;
  settings: CliSettings;
  close(): Promise<void>;
}

/** Starts the Service Bus emulator on a free port (admin off) and resolves CLI settings for it. */
export async function startCliBus(http = 'http://127.0.0.1:9'): Promise<CliTestBus> {
  const emulator = await start({ port: 0, adminPort: 0, config: testConfig });
  const client = new ServiceBusClient(emulator.connectionString, {
    retryOptions: { maxRetries: 0, timeoutInMs: 5_000 },
  });
  // An empty working directory and environment: only the flags count.
  const settings = resolveCliSettings(
    { servicebus: emulator.connectionString, http },
    {},
    mkdtempSync(join(tmpdir(), 'convoy-test-')),
  );
  return {
    emulator,
    client,
    settings,
    async close() {
      await client.close();
      await emulator.close();
    },
  };
}

/**
 * Sends entry messages to `orders` and dead-letters them with the given reasons, one settlement at a time.
 * Returns once they are all on the dead-letter queue.
 */
export async function deadLetterEntries(
  client: ServiceBusClient,
  items: {
    body: unknown;
    sessionId: string;
    messageId: string;
    reason: string;
    applicationProperties?: Record<string, string | number>;
  }[],
): Promise<void> {
  const sender = client.createSender('orders');
  for (const item of items) {
    await sender.sendMessages({
      body: item.body,
      sessionId: item.sessionId,
      messageId: item.messageId,
      correlationId: 'L-test',
      contentType: 'application/json',
      applicationProperties: item.applicationProperties ?? {},
    });
  }
  await sender.close();
  for (const item of items) {
    const receiver = await client.acceptSession('orders', item.sessionId);
    const [message] = await receiveExactly(receiver, 1, `messages of session ${item.sessionId}`);
    await receiver.deadLetterMessage(message!, {
      deadLetterReason: item.reason,
      deadLetterErrorDescription: `test: ${item.reason}`,
    });
    await receiver.close();
  }
}
