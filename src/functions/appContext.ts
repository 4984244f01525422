/**
 * The app's long-lived objects — settings, SDK clients, the order store, senders, telemetry, the processor and its
 * order cache — built lazily on first use from the app settings (`process.env`) and shared by every invocation.
 */
import type { CosmosClient } from '@azure/cosmos';
import type { ServiceBusClient, ServiceBusSender } from '@azure/service-bus';
import { createCosmosClient, createServiceBusClient, resolveCosmosConnection } from '../adapters/azureClients.js';
import type { AppSettings } from '../adapters/azureClients.js';
import { isLoopbackEndpoint, orderStoreClientOptions, ordersContainer } from '../adapters/cosmosClientOptions.js';
import { CosmosOrderStore } from '../adapters/cosmosOrderStore.js';
import { createTelemetry } from '../adapters/telemetry.js';
import { resolveCoreConfig } from '../core/config.js';
import type { CoreConfig } from '../core/config.js';
import { parseIsoDuration } from '../core/duration.js';
import { ConfigError } from '../core/errors.js';
import type { OrderStore } from '../core/ports/orderStore.js';
import type { Telemetry } from '../core/ports/telemetry.js';
import { OrderCache } from '../core/processor/orderCache.js';
import { OrderProcessor } from '../core/processor/orderProcessor.js';

/** Queue names (design: "Names everyone shares"). */
export const QueueName = { Ledger: 'ledger', Orders: 'orders', OrderEvents: 'order-events' } as const;
/** One of {@link QueueName}. */
export type QueueName = (typeof QueueName)[keyof typeof QueueName];

/** The app setting holding the Service Bus connection, as the triggers name it. */
export const SERVICE_BUS_CONNECTION = 'ServiceBusConnection';

/** How many orders' documents the processor keeps between invocations (one per session; oldest dropped first). */
export const ORDER_CACHE_SIZE = 4096;

/** Settings of the functions themselves (beyond the core's). */
export interface FunctionSettings {
  /** `LockDuration` of the `ledger` queue. Env `LEDGER_LOCK_DURATION`. @default PT1M */
  ledgerLockDurationMs: number;
}

/** The shared objects of one configuration. */
export interface AppContext {
  readonly settings: AppSettings;
  readonly config: Readonly<CoreConfig>;
  readonly functionSettings: Readonly<FunctionSettings>;
  readonly telemetry: Telemetry;
  /** The order documents the processor remembers across invocations of the same session (LRU). */
  readonly orderCache: OrderCache;
  cosmosClient(): CosmosClient;
  store(): OrderStore;
  serviceBusClient(): ServiceBusClient;
  /** One cached sender per queue. */
  sender(queue: QueueName): ServiceBusSender;
  processor(): OrderProcessor;
  /** Closes senders and clients. */
  close(): Promise<void>;
}

/** Setting names that shape the context: when any of them changes, the next call builds a new one. */
const RELEVANT = /^(ServiceBusConnection|CosmosConnection|AZURE_CLIENT_ID|LOG_LEVEL|INBOX_|TRANSIENT_|ORDERS_|LEDGER_|GAP_ALERT_AGE|OUTBOX_)/;

let current: { fingerprint: string; context: AppContext } | undefined;

/**
 * The app context for the current settings. Built once and cached; settings are read from `settings` (default
 * `process.env`) on each call only to notice a change — a host restarted in-process on other emulators gets a
 * fresh context, and the old one is closed. Throws `ConfigError`/`SettingsError` for unusable settings.
 */
export function appContext(settings: AppSettings = process.env): AppContext {
  const fingerprint = JSON.stringify(
    Object.keys(settings)
      .filter((key) => RELEVANT.test(key))
      .sort()
      .map((key) => [key, settings[key]]),
  );
  if (current?.fingerprint === fingerprint) return current.context;
  const previous = current?.context;
  current = { fingerprint, context: buildAppContext({ ...settings }) };
  void previous?.close().catch(() => undefined);
  return current.context;
}

/** Closes the cached context (hosts call this on shutdown; tests between suites). */
export async function closeAppContext(): Promise<void> {
  const context = current?.context;
  current = undefined;
  await context?.close();
}

/** Reads the functions' own settings. */
export function resolveFunctionSettings(settings: AppSettings): Readonly<FunctionSettings> {
  const raw = settings.LEDGER_LOCK_DURATION;
  if (raw === undefined || raw === '') return Object.freeze({ ledgerLockDurationMs: 60_000 });
  const ms = parseIsoDuration(raw);
  if (ms === undefined || ms <= 0) throw new ConfigError('LEDGER_LOCK_DURATION', `expected an ISO 8601 duration such as PT1M, got "${raw}"`);
  return Object.freeze({ ledgerLockDurationMs: ms });
}

function buildAppContext(settings: AppSettings): AppContext {
  const frozen = Object.freeze(settings);
  const config = resolveCoreConfig(frozen);
  const functionSettings = resolveFunctionSettings(frozen);
  const telemetry = createTelemetry({ level: frozen.LOG_LEVEL || 'info' });
  const orderCache = new OrderCache(ORDER_CACHE_SIZE);
  const senders = new Map<QueueName, ServiceBusSender>();
  let cosmos: CosmosClient | undefined;
  let store: OrderStore | undefined;
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
  const orderStore = (): OrderStore => (store ??= new CosmosOrderStore(ordersContainer(cosmosClient())));

  return {
    settings: frozen,
    config,
    functionSettings,
    telemetry,
    orderCache,
    cosmosClient,
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
