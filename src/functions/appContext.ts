/**
 * The app's long-lived objects — settings, SDK clients, the order store, senders, telemetry, the processor and its
 * order cache — built lazily on first use from the app settings (`process.env`) and shared by every invocation
 * until {@link closeAppContext}.
 */
import type { Container, CosmosClient } from '@azure/cosmos';
import type { ServiceBusClient, ServiceBusSender } from '@azure/service-bus';
import { createCosmosClient, createServiceBusClient } from '../adapters/azureClients.js';
import { resolveCosmosConnection } from '../adapters/azureSettings.js';
import type { AppSettings } from '../adapters/azureSettings.js';
import { isLoopbackEndpoint, orderStoreClientOptions, ordersContainer, resolveCosmosResourceNames } from '../adapters/cosmosClientOptions.js';
import type { CosmosResourceNames } from '../adapters/cosmosClientOptions.js';
import { CosmosOrderStore } from '../adapters/cosmosOrderStore.js';
import { createTelemetry } from '../adapters/telemetry.js';
import { resolveCoreConfig } from '../core/config.js';
import type { CoreConfig } from '../core/config.js';
import { parseIsoDuration } from '../core/duration.js';
import { ConfigError } from '../core/errors.js';
import { systemClock, type Clock } from '../core/ports/clock.js';
import type { GapStore, OrderStore } from '../core/ports/orderStore.js';
import type { Telemetry } from '../core/ports/telemetry.js';
import { OrderCache } from '../core/processor/orderCache.js';
import { OrderProcessor } from '../core/processor/orderProcessor.js';
import type { QueueName } from '../core/queueNames.js';


/** The app setting holding the Service Bus connection, as the triggers name it. */
export const SERVICE_BUS_CONNECTION = 'ServiceBusConnection';

/** How many orders' documents the processor keeps between invocations (one per session; oldest dropped first). */
const ORDER_CACHE_SIZE = 4096;

/** Settings of the functions themselves (beyond the core's). */
interface FunctionSettings {
  /** `LockDuration` of the `ledger` queue. Env `LEDGER_LOCK_DURATION`. @default PT1M */
  ledgerLockDurationMs: number;
}

/** The shared objects of one configuration. */
export interface AppContext {
  readonly settings: AppSettings;
  readonly config: Readonly<CoreConfig>;
  readonly functionSettings: Readonly<FunctionSettings>;
  /** The database and container: app settings `COSMOS_DATABASE` / `COSMOS_CONTAINER`, default `convoy` / `orders`. */
  readonly cosmosResources: CosmosResourceNames;
  readonly telemetry: Telemetry;
  /** The time the functions read (the splitter's lock-renewal interval); see {@link AppContextDeps.clock}. */
  readonly clock: Clock;
  /** The order documents the processor remembers across invocations of the same session (LRU). */
  readonly orderCache: OrderCache;
  cosmosClient(): CosmosClient;
  /** The orders container named by {@link AppContext.cosmosResources}. */
  container(): Container;
  store(): OrderStore & GapStore;
  serviceBusClient(): ServiceBusClient;
  /** One cached sender per queue. */
  sender(queue: QueueName): ServiceBusSender;
  processor(): OrderProcessor;
  /** Closes senders and clients. */
  close(): Promise<void>;
}

/** What {@link appContext} takes besides the settings. */
export interface AppContextDeps {
  /** The clock of the splitter's lock renewal; a test hands in one it moves. @default systemClock @internal */
  clock?: Clock;
}

/** The context built by the `appStart` hook (or the first call), or the error its settings gave. */
let current: AppContext | { error: unknown } | undefined;

/**
 * The app context. Built once from `settings` (default `process.env`: the app settings, read once) — by the
 * `appStart` hook (`appLifecycle.ts`), or by the first call — and kept until {@link closeAppContext}: per invocation
 * this is a variable read. Whoever changes the settings (a host restarted in-process on other emulators, a test)
 * resets it with `closeAppContext()` first. Unusable settings throw a `ConfigError`/`SettingsError` naming the
 * setting — the same error on every call, as the start hook logged it, until the context is reset.
 */
export function appContext(settings: AppSettings = process.env, deps: AppContextDeps = {}): AppContext {
  if (current === undefined) {
    try {
      current = buildAppContext({ ...settings }, deps);
    } catch (error) {
      current = { error };
    }
  }
  if ('error' in current) throw current.error;
  return current;
}

/**
 * Closes the cached context and forgets it, so the next {@link appContext} call reads the settings again. Hosts
 * call it on shutdown (the `appTerminate` hook on Azure, `close()` of the local host); tests call it before they
 * change settings. Safe to call when nothing is cached.
 */
export async function closeAppContext(): Promise<void> {
  const context = current;
  current = undefined;
  if (context !== undefined && !('error' in context)) await context.close();
}

/** Reads the functions' own settings. */
function resolveFunctionSettings(settings: AppSettings): Readonly<FunctionSettings> {
  const raw = settings.LEDGER_LOCK_DURATION;
  if (raw === undefined || raw === '') return Object.freeze({ ledgerLockDurationMs: 60_000 });
  const ms = parseIsoDuration(raw);
  if (ms === undefined || ms <= 0) throw new ConfigError('LEDGER_LOCK_DURATION', `expected an ISO 8601 duration such as PT1M, got "${raw}"`);
  return Object.freeze({ ledgerLockDurationMs: ms });
}

function buildAppContext(settings: AppSettings, deps: AppContextDeps): AppContext {
  const frozen = Object.freeze(settings);
  const config = resolveCoreConfig(frozen);
  const functionSettings = resolveFunctionSettings(frozen);
  const cosmosResources = resolveCosmosResourceNames(frozen);
  const telemetry = createTelemetry({ level: frozen.LOG_LEVEL || 'info' });
  const orderCache = new OrderCache(ORDER_CACHE_SIZE);
  const senders = new Map<QueueName, ServiceBusSender>();
  let cosmos: CosmosClient | undefined;
  let orders: Container | undefined;
  let store: CosmosOrderStore | undefined;
  let serviceBus: ServiceBusClient | undefined;
  let processor: OrderProcessor | undefined;

  const cosmosClient = (): CosmosClient => {
    if (cosmos === undefined) {
      const connection = resolveCosmosConnection(frozen);
      // The emulators' account metadata names their default port, not the one they run on: no discovery there.
      cosmos = createCosmosClient(frozen, orderStoreClientOptions({ endpointDiscovery: !isLoopbackEndpoint(connection.endpoint) }));
    }
    return cosmos;
  };
  const serviceBusClient = (): ServiceBusClient => (serviceBus ??= createServiceBusClient(frozen));
  const container = (): Container => (orders ??= ordersContainer(cosmosClient(), cosmosResources));
  const orderStore = (): CosmosOrderStore => (store ??= new CosmosOrderStore(container()));

  return {
    settings: frozen,
    config,
    functionSettings,
    cosmosResources,
    telemetry,
    clock: deps.clock ?? systemClock,
    orderCache,
    cosmosClient,
    container,
    store: orderStore,
    serviceBusClient,
    sender(queue: QueueName): ServiceBusSender {
      let sender = senders.get(queue);
      if (sender === undefined) {
        sender = serviceBusClient().createSender(queue);
        senders.set(queue, sender);
      }
      return sender;
    },
    processor: () => (processor ??= new OrderProcessor({ store: orderStore(), telemetry, options: config })),
    async close(): Promise<void> {
      await Promise.allSettled([...senders.values()].map((s) => s.close()));
      senders.clear();
      await serviceBus?.close();
      cosmos?.dispose();
    },
  };
}
