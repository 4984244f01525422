import { ServiceBusClient } from '@azure/service-bus';
import type { ServiceBusClientOptions } from '@azure/service-bus';
import { start } from '../src/index.js';
import type { RunningEmulator } from '../src/index.js';

/** Queue properties in Config.json form; tests override what they exercise. */
export type QueueProps = Partial<{
  DeadLetteringOnMessageExpiration: boolean;
  DefaultMessageTimeToLive: string;
  DuplicateDetectionHistoryTimeWindow: string;
  ForwardDeadLetteredMessagesTo: string;
  ForwardTo: string;
  LockDuration: string;
  MaxDeliveryCount: number;
  RequiresDuplicateDetection: boolean;
  RequiresSession: boolean;
  MaxMessageSizeInKilobytes: number;
}>;

/** A Config.json queue entry with short test defaults. */
export function queue(name: string, props: QueueProps = {}): { Name: string; Properties: QueueProps } {
  return {
    Name: name,
    Properties: { LockDuration: 'PT5S', MaxDeliveryCount: 10, DefaultMessageTimeToLive: 'PT1H', ...props },
  };
}

/** A Config.json document with these queues (and topics). */
export function configWith(queues: ReturnType<typeof queue>[], topics: unknown[] = []): object {
  return {
    UserConfig: { Namespaces: [{ Name: 'test', Queues: queues, Topics: topics }], Logging: { Type: 'Console' } },
  };
}

/** SDK options that make failures fast: no retries, short timeouts. */
export const fastClientOptions: ServiceBusClientOptions = {
  retryOptions: { maxRetries: 0, timeoutInMs: 5_000, retryDelayInMs: 100 },
};

/** A started emulator with a client; `close()` tears both down. */
export interface TestBus {
  emulator: RunningEmulator;
  client: ServiceBusClient;
  /** Another client (another AMQP connection). */
  newClient(): ServiceBusClient;
  close(): Promise<void>;
}

/** Starts the emulator in-process on a free port with the given config, admin port off (and `latencyMs`, if given). */
export async function startBus(config: object, options: { latencyMs?: number } = {}): Promise<TestBus> {
  const emulator = await start({ port: 0, adminPort: 0, config, ...options });
  const clients: ServiceBusClient[] = [];
  const newClient = (): ServiceBusClient => {
    const c = new ServiceBusClient(emulator.connectionString, fastClientOptions);
    clients.push(c);
    return c;
  };
  const client = newClient();
  return {
    emulator,
    client,
    newClient,
    async close() {
      await Promise.allSettled(clients.map((c) => c.close()));
      await emulator.close();
    },
  };
}

/** Resolves after `ms`. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
