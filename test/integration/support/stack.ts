import { CosmosClient } from '@azure/cosmos';
import type { Container } from '@azure/cosmos';
import functions from '@azure/functions';
import type { HttpHandler, HttpResponseInit, ServiceBusQueueHandler } from '@azure/functions';
import { ServiceBusClient } from '@azure/service-bus';
import type { ServiceBusReceivedMessage, ServiceBusReceiver, ServiceBusSessionReceiver } from '@azure/service-bus';
import { randomUUID } from 'node:crypto';
import { start as startCosmos } from '@ledger-convoy/cosmos-emulator';
import type { CosmosEmulator } from '@ledger-convoy/cosmos-emulator';
import { start as startServiceBus } from '@ledger-convoy/servicebus-emulator';
import type { RunningEmulator } from '@ledger-convoy/servicebus-emulator';
import { composeApp, type App } from '../../../src/functions/app.js';
import { nextWhileAny, peekEverything, receiveExactly } from '../../support/serviceBusWaits.js';
import { receiverActions } from './settlementActions.js';
import type { ReceiverActionsOptions, RecordedSettlement } from './settlementActions.js';

// CommonJS bundle: only app/trigger/output import by name in native ESM (docs/platform.md).
const { InvocationContext, HttpRequest } = functions;

const queue = (name: string, props: Record<string, unknown> = {}) => ({
  Name: name,
  Properties: {
    LockDuration: 'PT30S',
    MaxDeliveryCount: 10,
    DefaultMessageTimeToLive: 'PT1H',
    RequiresDuplicateDetection: true,
    DuplicateDetectionHistoryTimeWindow: 'PT10M',
    ...props,
  },
});

/** A session-enabled subscription of `order-events`; without `sqlFilter` it takes every event. */
export const eventSubscription = (name: string, sqlFilter?: string) => ({
  Name: name,
  Properties: { LockDuration: 'PT30S', MaxDeliveryCount: 10, DefaultMessageTimeToLive: 'PT1H', RequiresSession: true },
  Rules:
    sqlFilter === undefined
      ? []
      : [{ Name: 'events', Properties: { FilterType: 'Sql', SqlFilter: { SqlExpression: sqlFilter } } }],
});

/**
 * The test namespace's queues and the `order-events` topic, each with extra `Properties` from `overrides` (by
 * entity name); the topic's subscriptions are `all` and `subscriptions`.
 */
export function serviceBusConfig(
  overrides: Readonly<Record<string, Record<string, unknown>>> = {},
  subscriptions: readonly ReturnType<typeof eventSubscription>[] = [],
) {
  const { LockDuration: _lock, MaxDeliveryCount: _count, ...topicProperties } = queue('order-events').Properties;
  return {
    UserConfig: {
      Namespaces: [
        {
          Name: 'convoytest',
          Queues: [queue('ledger', overrides.ledger), queue('orders', { RequiresSession: true, ...overrides.orders })],
          Topics: [
            {
              Name: 'order-events',
              Properties: { ...topicProperties, ...overrides['order-events'] },
              Subscriptions: [eventSubscription('all'), ...subscriptions],
            },
          ],
        },
      ],
      Logging: { Type: 'Console' },
    },
  };
}

/** The test namespace: the app's two queues and its topic with its subscription `all`, with short locks. */
export const testServiceBusConfig = serviceBusConfig();

/** Options of {@link startStack}. */
export interface StackOptions {
  /** Extra queue `Properties` by queue name (e.g. a small `MaxMessageSizeInKilobytes`). @default none */
  queueProperties?: Readonly<Record<string, Record<string, unknown>>>;
  /** Subscriptions of `order-events` beside `all` (see {@link eventSubscription}). @default none */
  eventSubscriptions?: readonly ReturnType<typeof eventSubscription>[];
}

/** Both emulators, SDK clients on them, and the app's registered handlers wired to them through `process.env`. */
export interface Stack {
  serviceBus: RunningEmulator;
  cosmos: CosmosEmulator;
  /** The app, composed and started on these emulators. */
  app: App;
  bus: ServiceBusClient;
  container: Container;
  handlers: {
    ledgerSplitter: ServiceBusQueueHandler;
    orderProcessor: ServiceBusQueueHandler;
    getOrder: HttpHandler;
    postLedger: HttpHandler;
  };
  close(): Promise<void>;
}

const APP_SETTINGS = [
  'ServiceBusConnection',
  'CosmosConnection',
  'TRANSIENT_RETRY_BUDGET',
  'TRANSIENT_RETRY_BASE_DELAY',
  'TRANSIENT_RETRY_MAX_DELAY',
  'LOG_LEVEL',
];

/**
 * Starts the emulators on port 0, creates `convoy`/`orders`, points the app settings at them, and composes and
 * starts the app; close terminates it.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const serviceBus = await startServiceBus({
    port: 0,
    adminPort: 0,
    config: serviceBusConfig(options.queueProperties, options.eventSubscriptions),
  });
  const cosmos = await startCosmos({ port: 0 });
  const cosmosClient = new CosmosClient({
    endpoint: cosmos.endpoint,
    key: cosmos.key,
    connectionPolicy: { enableEndpointDiscovery: false },
  });
  const { database } = await cosmosClient.databases.createIfNotExists({ id: 'convoy' });
  const { container } = await database.containers.createIfNotExists({
    id: 'orders',
    partitionKey: { paths: ['/orderId'] },
    defaultTtl: -1,
  });
  // The outbox relay's lease container, as `npm start` creates it.
  await database.containers.createIfNotExists({ id: 'leases', partitionKey: { paths: ['/id'] } });
  const previous = new Map(APP_SETTINGS.map((key) => [key, process.env[key]]));
  Object.assign(process.env, {
    ServiceBusConnection: serviceBus.connectionString,
    CosmosConnection: cosmos.connectionString,
    TRANSIENT_RETRY_BUDGET: '5000',
    TRANSIENT_RETRY_BASE_DELAY: '5',
    TRANSIENT_RETRY_MAX_DELAY: '50',
    LOG_LEVEL: 'silent',
  });
  const app = composeApp();
  await app.start();
  const handler = (name: string) => handlerOf(app, name);
  const bus = new ServiceBusClient(serviceBus.connectionString, {
    retryOptions: { maxRetries: 1, timeoutInMs: 5_000, retryDelayInMs: 50 },
  });
  return {
    serviceBus,
    cosmos,
    app,
    bus,
    container,
    handlers: {
      ledgerSplitter: handler('ledgerSplitter') as ServiceBusQueueHandler,
      orderProcessor: handler('orderProcessor') as ServiceBusQueueHandler,
      getOrder: handler('getOrder') as HttpHandler,
      postLedger: handler('postLedger') as HttpHandler,
    },
    async close() {
      await app.terminate();
      await bus.close();
      cosmosClient.dispose();
      await Promise.all([serviceBus.close(), cosmos.close()]);
      for (const [key, value] of previous) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    },
  };
}

/** The handler of the app's function `name`. */
export function handlerOf(app: App, name: string): App['functions'][number]['options']['handler'] {
  const found = app.functions.find((r) => r.name === name);
  if (!found) throw new Error(`function ${name} is not registered`);
  return found.options.handler;
}

/** A fresh invocation context, as the host would pass it. */
export function invocation(functionName: string): InstanceType<typeof InvocationContext> {
  return new InvocationContext({ invocationId: randomUUID(), functionName, logHandler: () => undefined });
}

/** Calls an SDK-binding handler with one received message and a receiver-backed `actions`. */
export async function invokeWith(
  handler: ServiceBusQueueHandler,
  functionName: string,
  receiver: ServiceBusReceiver | ServiceBusSessionReceiver,
  message: ServiceBusReceivedMessage,
  options: ReceiverActionsOptions = {},
): Promise<{ result: unknown; settled: RecordedSettlement[]; renewals: string[]; releases: string[] }> {
  const { actions, settled, renewals, releases } = receiverActions(receiver, options);
  const result = await handler({ messages: message, actions }, invocation(functionName));
  return { result, settled, renewals, releases };
}

/** Receives the next ledger message (one must be on its way) and runs the splitter on it. */
export async function runSplitter(stack: Stack, options: ReceiverActionsOptions = {}) {
  const receiver = stack.bus.createReceiver('ledger');
  try {
    const [message] = (await receiveExactly(receiver, 1, 'ledger messages')) as [ServiceBusReceivedMessage];
    return {
      message,
      ...(await invokeWith(stack.handlers.ledgerSplitter, 'ledgerSplitter', receiver, message, options)),
    };
  } finally {
    await receiver.close();
  }
}

/**
 * Accepts `orderId`'s session and runs the processor on each message until the session is empty (as the broker
 * shows it, not as a quiet spell suggests). A release the handler asks for is recorded (`releasedAfter`: indexes
 * into `results`) and draining goes on, as the host would after accepting the session again.
 */
export async function drainSession(
  stack: Stack,
  orderId: string,
): Promise<{ results: unknown[]; settled: RecordedSettlement[]; releasedAfter: number[] }> {
  const receiver = await stack.bus.acceptSession('orders', orderId);
  const results: unknown[] = [];
  const settled: RecordedSettlement[] = [];
  const releasedAfter: number[] = [];
  try {
    for (let message = await nextWhileAny(receiver); message; message = await nextWhileAny(receiver)) {
      const run = await invokeWith(stack.handlers.orderProcessor, 'orderProcessor', receiver, message);
      results.push(run.result);
      settled.push(...run.settled);
      if (run.releases.includes(orderId)) releasedAfter.push(results.length - 1);
    }
  } finally {
    await receiver.close();
  }
  return { results, settled, releasedAfter };
}

/** Reads an order through the registered GET handler. */
export async function getOrder(stack: Stack, orderId: string): Promise<HttpResponseInit> {
  const request = new HttpRequest({
    method: 'GET',
    url: `http://localhost/api/orders/${orderId}`,
    params: { orderId },
  });
  return (await stack.handlers.getOrder(request, invocation('getOrder'))) as HttpResponseInit;
}

/** Posts a body through the registered POST handler. */
export async function postLedger(
  stack: Stack,
  body: string,
  headers: Record<string, string> = {},
): Promise<HttpResponseInit> {
  const request = new HttpRequest({
    method: 'POST',
    url: 'http://localhost/api/ledgers',
    body: { string: body },
    headers,
  });
  return (await stack.handlers.postLedger(request, invocation('postLedger'))) as HttpResponseInit;
}

/** Dead letters of a queue (sessions or not): every one it holds (peeked), then received and completed. */
export async function deadLetters(stack: Stack, queueName: string): Promise<ServiceBusReceivedMessage[]> {
  const receiver = stack.bus.createReceiver(queueName, { subQueueType: 'deadLetter' });
  try {
    const held = await peekEverything(receiver);
    const out = await receiveExactly(receiver, held.length, `dead letters of ${queueName}`);
    for (const message of out) await receiver.completeMessage(message);
    return out;
  } finally {
    await receiver.close();
  }
}

/** Every message on `orders` as (session, entryId), peeked from the start (no lock taken). */
export async function peekOrderEntries(stack: Stack): Promise<{ sessionId?: string; entryId: string }[]> {
  const peeker = stack.bus.createReceiver('orders');
  try {
    const messages = await peekEverything(peeker);
    return messages.map((m) => ({ sessionId: m.sessionId, entryId: (m.body as { entryId: string }).entryId }));
  } finally {
    await peeker.close();
  }
}

/** Sends a ledger body to the `ledger` queue with this transport `messageId`. */
export async function sendLedger(stack: Stack, body: unknown, messageId: string): Promise<void> {
  const sender = stack.bus.createSender('ledger');
  try {
    await sender.sendMessages({ messageId, contentType: 'application/json', body });
  } finally {
    await sender.close();
  }
}
