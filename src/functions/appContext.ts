/**
 * The app's long-lived objects — settings, SDK clients, the order store, senders, telemetry, metrics, the processor
 * and its order cache, the outbox relay — built together from one set of app settings by the composition root
 * (`app.ts`) when the host starts, and handed to every function as its first parameter.
 */
import type { CosmosClient } from '@azure/cosmos';
import type { ServiceBusSender } from '@azure/service-bus';
import type { DestinationStream } from 'pino';
import { createCosmosClient, createServiceBusClient } from '../adapters/azureClients.js';
import { resolveCosmosConnection, resolveServiceBusConnection } from '../adapters/azureSettings.js';
import type { AppSettings } from '../adapters/azureSettings.js';
import { resolveCosmosResourceNames } from '../adapters/cosmosClientOptions.js';
import { CosmosOrderStore } from '../adapters/cosmosOrderStore.js';
import { ConvoyMetrics } from '../adapters/metrics.js';
import { CosmosOutboxHoldStore } from '../adapters/outboxHoldCosmosStore.js';
import { ServiceBusOrderEventSender } from '../adapters/outboxServiceBusSender.js';
import { webhookOf } from '../adapters/outboxWebhook.js';
import { createTelemetry } from '../adapters/telemetry.js';
import { isoDuration, resolveCoreConfig } from '../core/config.js';
import { OutboxRelay, type HoldRetryDeps } from '../core/index.js';
import { resolveOutboxConfig } from '../core/outbox/outboxConfig.js';
import { systemClock, type Clock } from '../core/ports/clock.js';
import { OrderCache } from '../core/processor/orderCache.js';
import { OrderProcessor } from '../core/processor/orderProcessor.js';
import { ORDER_EVENTS_TOPIC, QueueName } from '../core/queueNames.js';
import type { FunctionRegistration } from './register.js';

/** The app setting holding the Service Bus connection, as the triggers name it. */
const SERVICE_BUS_CONNECTION = 'ServiceBusConnection';

/**
 * What both Service Bus triggers share: the handler gets the SDK binding's `{ messages, actions }`, one message at a
 * time, and settles each message itself (the host completes nothing).
 */
export const SETTLED_BY_HANDLER = {
  connection: SERVICE_BUS_CONNECTION,
  sdkBinding: true,
  autoCompleteMessages: false,
  cardinality: 'one',
} as const;

/**
 * How many orders' documents the processor keeps between invocations (one per session; oldest dropped first), and
 * four times as many transactions.
 */
const ORDER_CACHE_SIZE = 4096;

/** `LockDuration` of the `ledger` queue when `LEDGER_LOCK_DURATION` is unset (PT1M). */
const LEDGER_LOCK_DURATION_DEFAULT_MS = 60_000;

/** Everything the functions share, built from one set of app settings. */
export type AppContext = Readonly<ReturnType<typeof createAppContext>>;

/** What the Functions host takes for a trigger of kind `K`, its handler included. */
type TriggerOptions<K extends FunctionRegistration['kind']> = Extract<FunctionRegistration, { kind: K }>['options'];
type TriggerHandler<K extends FunctionRegistration['kind']> = TriggerOptions<K>['handler'];

/**
 * A function of the app, as its file defines it: its trigger's options, and its handler, which takes the app context
 * as its first parameter. The composition root hands it the context it holds, read at each invocation.
 */
export function defineFunction<K extends FunctionRegistration['kind']>(
  kind: K,
  name: string,
  handler: (app: AppContext, ...args: Parameters<TriggerHandler<K>>) => ReturnType<TriggerHandler<K>>,
  options: Omit<TriggerOptions<K>, 'handler'>,
): (context: () => AppContext) => FunctionRegistration {
  return (context) => {
    // Async, so a context that cannot be built rejects the invocation rather than throwing at the host.
    const bound = async (...args: Parameters<TriggerHandler<K>>) => handler(context(), ...args);
    // The kind's options again, with their handler: TypeScript cannot follow a generic kind through the spread.
    return { kind, name, options: { ...options, handler: bound } } as unknown as FunctionRegistration;
  };
}

/** What {@link createAppContext} takes besides the settings. */
export interface AppContextDeps {
  /** The clock of the splitter's lock renewal and the relay; a test hands in one it moves. @default systemClock */
  clock?: Clock;
  /** Where the app's log lines go (the in-process host's stream). @default stdout */
  logDestination?: DestinationStream;
}

/**
 * Builds every shared object from `settings` (copied and frozen: later changes to the source do not reach it).
 * Every setting is read before anything is opened, so settings that cannot run leave nothing behind; the SDK
 * clients are created but not connected: they connect on first use.
 * @throws ConfigError / SettingsError naming the first unusable setting.
 */
export function createAppContext(settings: AppSettings, deps: AppContextDeps = {}) {
  const frozen: AppSettings = Object.freeze({ ...settings });
  const config = resolveCoreConfig(frozen);
  const ledgerLockDurationMs = isoDuration(frozen, 'LEDGER_LOCK_DURATION', LEDGER_LOCK_DURATION_DEFAULT_MS);
  const cosmosResources = resolveCosmosResourceNames(frozen);
  const outboxConfig = resolveOutboxConfig(frozen);
  resolveCosmosConnection(frozen);
  resolveServiceBusConnection(frozen);
  const telemetry = createTelemetry({
    level: frozen.LOG_LEVEL || 'info',
    ...(deps.logDestination !== undefined && { destination: deps.logDestination }),
  });
  const clock = deps.clock ?? systemClock;

  const serviceBus = createServiceBusClient(frozen);
  let cosmosClient: CosmosClient;
  try {
    cosmosClient = createCosmosClient(frozen);
  } catch (error) {
    void serviceBus.close();
    throw error;
  }
  const senders = new Map<string, ServiceBusSender>();
  const sender = (entity: QueueName | typeof ORDER_EVENTS_TOPIC): ServiceBusSender => {
    let found = senders.get(entity);
    if (found === undefined) senders.set(entity, (found = serviceBus.createSender(entity)));
    return found;
  };
  const metrics = new ConvoyMetrics();
  const container = cosmosClient.database(cosmosResources.database).container(cosmosResources.container);
  const store = new CosmosOrderStore(container);
  // The relay and the hold timer share the holds (kept in the orders container), the sender and the webhook.
  const holds = new CosmosOutboxHoldStore(container);
  const events = new ServiceBusOrderEventSender(sender(ORDER_EVENTS_TOPIC));
  const webhook = webhookOf(outboxConfig);

  return {
    config,
    /** `LockDuration` of the `ledger` queue: app setting `LEDGER_LOCK_DURATION`, default PT1M. */
    ledgerLockDurationMs,
    telemetry,
    /** The instruments beyond the telemetry's counters (durations, conflicts, the outbox and gap gauges). */
    metrics,
    /** The time the functions read (the splitter's lock renewal, the relay's holds); see {@link AppContextDeps.clock}. */
    clock,
    /** The order documents the processor remembers across invocations of the same session (LRU). */
    orderCache: new OrderCache(ORDER_CACHE_SIZE),
    /** The orders container: app settings `COSMOS_DATABASE` / `COSMOS_CONTAINER`, default `convoy` / `orders`. */
    container,
    store,
    processor: new OrderProcessor({ store, telemetry, options: config }),
    /** The outbox relay, its holds, and what the `outboxHoldRetry` timer releases holds with. */
    outbox: {
      holds,
      relay: new OutboxRelay({
        sender: events,
        webhook,
        holds,
        telemetry,
        options: outboxConfig,
        observer: metrics,
        clock,
      }),
      holdRetry: {
        holds,
        sender: events,
        webhook,
        backoff: outboxConfig.holdRetry,
        clock,
        timeoutMs: outboxConfig.webhookTimeoutMs,
        telemetry,
      } satisfies HoldRetryDeps,
    },
    /** One sender per queue (and the `order-events` topic), created on first use (creating one opens nothing). */
    sender,
    /** Closes senders and clients, and takes the metrics' gauges off the meter. */
    async close(): Promise<void> {
      metrics.close();
      await Promise.allSettled([...senders.values()].map((s) => s.close()));
      senders.clear();
      await serviceBus.close();
      cosmosClient.dispose();
    },
  };
}
