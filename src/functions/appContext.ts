/**
 * The app's long-lived objects — settings, SDK clients, the order store, senders, telemetry, metrics, the processor
 * and its order cache, the outbox relay — built together from one set of app settings by the composition root
 * (`app.ts`) when the host starts, and handed to every function as its first parameter.
 */
import type { Container, CosmosClient } from '@azure/cosmos';
import type { ServiceBusClient, ServiceBusSender } from '@azure/service-bus';
import type { DestinationStream } from 'pino';
import { createCosmosClient, createServiceBusClient } from '../adapters/azureClients.js';
import { resolveCosmosConnection, resolveServiceBusConnection } from '../adapters/azureSettings.js';
import type { AppSettings } from '../adapters/azureSettings.js';
import { resolveCosmosResourceNames } from '../adapters/cosmosClientOptions.js';
import type { CosmosResourceNames } from '../adapters/cosmosClientOptions.js';
import { CosmosOrderStore } from '../adapters/cosmosOrderStore.js';
import { ConvoyMetrics } from '../adapters/metrics.js';
import { createTelemetry } from '../adapters/telemetry.js';
import { resolveCoreConfig } from '../core/config.js';
import { resolveOutboxConfig } from '../core/outbox/outboxConfig.js';
import type { CoreConfig } from '../core/config.js';
import { parseIsoDuration } from '../core/duration.js';
import { ConfigError } from '../core/errors.js';
import { systemClock, type Clock } from '../core/ports/clock.js';
import type { Telemetry } from '../core/ports/telemetry.js';
import { OrderCache } from '../core/processor/orderCache.js';
import { OrderProcessor } from '../core/processor/orderProcessor.js';
import { ORDER_EVENTS_TOPIC, QueueName } from '../core/queueNames.js';
import { createOutboxRuntime, type OutboxRuntime } from './outboxRuntime.js';

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

/** Settings of the functions themselves (beyond the core's). */
interface FunctionSettings {
  /** `LockDuration` of the `ledger` queue. Env `LEDGER_LOCK_DURATION`. @default PT1M */
  ledgerLockDurationMs: number;
}

/** Everything the functions share, built from one set of app settings. */
export interface AppContext {
  readonly settings: AppSettings;
  readonly config: Readonly<CoreConfig>;
  readonly functionSettings: Readonly<FunctionSettings>;
  /** The database and container: app settings `COSMOS_DATABASE` / `COSMOS_CONTAINER`, default `convoy` / `orders`. */
  readonly cosmosResources: CosmosResourceNames;
  readonly telemetry: Telemetry;
  /** The instruments beyond the telemetry's counters (durations, conflicts, the outbox and gap gauges). */
  readonly metrics: ConvoyMetrics;
  /** The time the functions read (the splitter's lock renewal, the relay's holds); see {@link AppContextDeps.clock}. */
  readonly clock: Clock;
  /** The order documents the processor remembers across invocations of the same session (LRU). */
  readonly orderCache: OrderCache;
  readonly cosmosClient: CosmosClient;
  /** The orders container named by {@link AppContext.cosmosResources}. */
  readonly container: Container;
  readonly store: CosmosOrderStore;
  readonly processor: OrderProcessor;
  /** The outbox relay and what the hold timer shares with it. */
  readonly outbox: OutboxRuntime;
  /** One sender per queue (and the `order-events` topic), created on first use (creating one opens nothing). */
  sender(entity: QueueName | typeof ORDER_EVENTS_TOPIC): ServiceBusSender;
  /** Closes senders and clients, and takes the metrics' gauges off the meter. */
  close(): Promise<void>;
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
export function createAppContext(settings: AppSettings, deps: AppContextDeps = {}): AppContext {
  const frozen: AppSettings = Object.freeze({ ...settings });
  const config = resolveCoreConfig(frozen);
  const functionSettings = resolveFunctionSettings(frozen);
  const cosmosResources = resolveCosmosResourceNames(frozen);
  const outboxConfig = resolveOutboxConfig(frozen);
  resolveCosmosConnection(frozen);
  resolveServiceBusConnection(frozen);
  const telemetry = createTelemetry({
    level: frozen.LOG_LEVEL || 'info',
    ...(deps.logDestination !== undefined && { destination: deps.logDestination }),
  });
  const clock = deps.clock ?? systemClock;

  const serviceBus: ServiceBusClient = createServiceBusClient(frozen);
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
  const outbox = createOutboxRuntime({
    config: outboxConfig,
    container,
    sender: sender(ORDER_EVENTS_TOPIC),
    telemetry,
    metrics,
    clock,
  });

  return {
    settings: frozen,
    config,
    functionSettings,
    cosmosResources,
    telemetry,
    metrics,
    clock,
    orderCache: new OrderCache(ORDER_CACHE_SIZE),
    cosmosClient,
    container,
    store,
    processor: new OrderProcessor({ store, telemetry, options: config }),
    outbox,
    sender,
    async close(): Promise<void> {
      metrics.close();
      await Promise.allSettled([...senders.values()].map((s) => s.close()));
      senders.clear();
      await serviceBus.close();
      cosmosClient.dispose();
    },
  };
}

/** Reads the functions' own settings. */
function resolveFunctionSettings(settings: AppSettings): Readonly<FunctionSettings> {
  const raw = settings.LEDGER_LOCK_DURATION;
  if (raw === undefined || raw === '') return Object.freeze({ ledgerLockDurationMs: 60_000 });
  const ms = parseIsoDuration(raw);
  if (ms === undefined || ms <= 0)
    throw new ConfigError('LEDGER_LOCK_DURATION', `expected an ISO 8601 duration such as PT1M, got "${raw}"`);
  return Object.freeze({ ledgerLockDurationMs: ms });
}
