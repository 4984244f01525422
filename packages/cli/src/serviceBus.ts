import Long from 'long';
import { ServiceBusClient, isServiceBusError, type ServiceBusReceivedMessage } from '@azure/service-bus';
import { resolveServiceBusConnection } from 'ledger-convoy/adapters/azureSettings';
import { CliError, isCliError } from './errors.js';
import { requireServiceBus, type CliSettings } from './settings.js';

const CLIENT_OPTIONS = { retryOptions: { maxRetries: 2, retryDelayInMs: 500, timeoutInMs: 15_000 } };

/**
 * The Service Bus client for these settings; few, short retries so a stopped emulator fails in seconds. A
 * connection string opens the client directly; only managed identity loads the app's client factory, whose
 * `@azure/identity` and `@azure/cosmos` imports cost about a second of start-up that `send` and `verify` don't need.
 */
export async function openServiceBus(settings: CliSettings): Promise<ServiceBusClient> {
  requireServiceBus(settings);
  const connection = resolveServiceBusConnection(settings.app);
  if (connection.kind === 'connectionString') return new ServiceBusClient(connection.connectionString, CLIENT_OPTIONS);
  const { createServiceBusClient } = await import('ledger-convoy/adapters/azureClients');
  return createServiceBusClient(settings.app, CLIENT_OPTIONS);
}

/**
 * The entity path of a topic's subscription (`order-events/Subscriptions/all`): a receiver created on it reads the
 * subscription (and its dead-letter queue) as one on a queue name reads the queue, so every dead-letter command
 * takes either.
 */
export function subscriptionPath(topic: string, subscription: string): string {
  return `${topic}/Subscriptions/${subscription}`;
}

/** The topic and subscription an entity path names, or `undefined` for a queue. */
export function subscriptionOf(path: string): { topic: string; subscription: string } | undefined {
  const match = /^([^/]+)\/subscriptions\/([^/]+)$/i.exec(path);
  return match ? { topic: match[1] as string, subscription: match[2] as string } : undefined;
}

/** Runs `work` with a client and always closes it. */
export async function withServiceBus<T>(
  settings: CliSettings,
  work: (client: ServiceBusClient) => Promise<T>,
): Promise<T> {
  const client = await openServiceBus(settings);
  try {
    return await work(client);
  } catch (error) {
    throw asCliError(error);
  } finally {
    await client.close();
  }
}

/** Peeks every message of a queue or its dead-letter queue (nothing is locked or changed). */
export async function peekAll(
  client: ServiceBusClient,
  queue: string,
  subQueue?: 'deadLetter',
  limit = 10_000,
): Promise<ServiceBusReceivedMessage[]> {
  const out: ServiceBusReceivedMessage[] = [];
  await forEachPeekedPage(client, queue, subQueue, limit, (page) => void out.push(...page));
  return out;
}

/**
 * The sequence numbers (decimal text) of every message a queue or its dead-letter queue holds now, available or
 * locked; only the numbers are kept, so a large queue costs little memory.
 */
export async function peekSequenceNumbers(
  client: ServiceBusClient,
  queue: string,
  subQueue?: 'deadLetter',
): Promise<Set<string>> {
  const numbers = new Set<string>();
  await forEachPeekedPage(client, queue, subQueue, Number.POSITIVE_INFINITY, (page) => {
    for (const message of page)
      if (message.sequenceNumber !== undefined) numbers.add(message.sequenceNumber.toString());
  });
  return numbers;
}

async function forEachPeekedPage(
  client: ServiceBusClient,
  queue: string,
  subQueue: 'deadLetter' | undefined,
  limit: number,
  onPage: (page: ServiceBusReceivedMessage[]) => void,
): Promise<void> {
  const receiver = client.createReceiver(queue, subQueue ? { subQueueType: subQueue } : {});
  try {
    let count = 0;
    // Always from an explicit sequence number: without one the SDK goes on from a peek cursor it shares between
    // every receiver of the entity on this client, so a second look would start where the first one ended.
    let from = Long.fromNumber(0);
    while (count < limit) {
      const page = await receiver.peekMessages(Math.min(250, limit - count), { fromSequenceNumber: from });
      if (page.length === 0) break;
      onPage(page);
      count += page.length;
      const last = page[page.length - 1]?.sequenceNumber;
      if (last === undefined) break;
      from = last.add(1);
    }
  } finally {
    await receiver.close();
  }
}

/** Maps Service Bus failures to errors that say what to do; other errors pass through. */
export function asCliError(error: unknown): unknown {
  if (isCliError(error) || !(error instanceof Error)) return error;
  // Socket failures surface as core-amqp MessagingErrors (code GeneralError) rather than ServiceBusErrors.
  const network =
    (error as { syscall?: string }).syscall !== undefined ||
    /ECONNREFUSED|ENOTFOUND|ETIMEDOUT|ECONNRESET/.test(error.message);
  if (!isServiceBusError(error) && !network) return error;
  const code = network ? 'ServiceCommunicationProblem' : (error as unknown as { code: string }).code;
  switch (code) {
    case 'ServiceCommunicationProblem':
    case 'ServiceTimeout':
      return new CliError(
        'ServiceBus',
        `Cannot reach Service Bus (${error.message}).`,
        'Start the local stack with `npm start`, or pass --servicebus "<connection string>".',
        { cause: error },
      );
    case 'MessagingEntityNotFound':
      return new CliError(
        'ServiceBus',
        `A queue, topic or subscription is missing: ${error.message}`,
        'The namespace needs the queues ledger and orders, and the topic order-events with its subscriptions (infra/servicebus.config.json).',
        { cause: error },
      );
    case 'UnauthorizedAccess':
      return new CliError(
        'ServiceBus',
        `Service Bus refused the credentials: ${error.message}`,
        'Check the connection string, or the role assignments of your identity.',
        { cause: error },
      );
    default:
      return new CliError('ServiceBus', `Service Bus: ${code}: ${error.message}`, undefined, { cause: error });
  }
}
