/**
 * Cosmos DB client settings for the order store, and the names of its resources (docs/architecture.md, "Names everyone shares").
 */
import type { CosmosClient, CosmosClientOptions, Container } from '@azure/cosmos';
import { SettingsError } from './azureSettings.js';
import type { AppSettings } from './azureSettings.js';

/** True for an endpoint on this machine (the embedded or official emulator): see `loopback.ts`. */
export { isLoopbackEndpoint } from './loopback.js';

/** The app's database when the `COSMOS_DATABASE` app setting is unset. */
export const COSMOS_DATABASE = 'convoy';
/** The app's container when the `COSMOS_CONTAINER` app setting is unset; partitioned on {@link ORDERS_PARTITION_KEY}. */
export const ORDERS_CONTAINER = 'orders';
/** Partition key path of the orders container. */
export const ORDERS_PARTITION_KEY = '/orderId';

/** Where the app keeps its documents: one database, one container partitioned on {@link ORDERS_PARTITION_KEY}. */
export interface CosmosResourceNames {
  readonly database: string;
  readonly container: string;
}

/** `convoy` / `orders`, the names Bicep and the local host provision by default. */
export const DEFAULT_COSMOS_RESOURCES: CosmosResourceNames = Object.freeze({
  database: COSMOS_DATABASE,
  container: ORDERS_CONTAINER,
});

// Cosmos DB resource ids: 1-255 characters, none of / \ ? #, not ending in a space.
const RESOURCE_ID = /^[^/\\?#]{0,254}[^/\\?# ]$/;

/**
 * Reads the app settings `COSMOS_DATABASE` (default `convoy`) and `COSMOS_CONTAINER` (default `orders`) — the
 * names Bicep outputs and sets on the function app. An empty setting counts as unset.
 * @throws SettingsError (`InvalidSetting`) for a name Cosmos DB would refuse.
 */
export function resolveCosmosResourceNames(settings: AppSettings): CosmosResourceNames {
  const read = (name: string, fallback: string): string => {
    const value = settings[name]?.trim();
    if (!value) return fallback;
    if (!RESOURCE_ID.test(value)) {
      throw new SettingsError(
        'InvalidSetting',
        name,
        `${name} must be a Cosmos DB resource id: 1-255 characters, none of / \\ ? #, not ending in a space.`,
      );
    }
    return value;
  };
  return Object.freeze({
    database: read('COSMOS_DATABASE', COSMOS_DATABASE),
    container: read('COSMOS_CONTAINER', ORDERS_CONTAINER),
  });
}

/** Options of {@link orderStoreClientOptions}. */
export interface OrderStoreClientOptions {
  /** Time to wait for a reply before the SDK gives up on a request (then a write's outcome is unknown). @default 10000 */
  requestTimeoutMs?: number;
  /**
   * Follow the account's regional endpoints. Off for the local emulators, whose account metadata names their
   * default port rather than the one they were started on. @default true
   */
  endpointDiscovery?: boolean;
}

/**
 * Client options that let the core see every status it must decide on: the SDK's own throttling retries are off
 * (a 429 reaches the core, which waits it out as its retry-after says, rule 8), and requests time out well
 * inside the message lock.
 */
export function orderStoreClientOptions(
  options: OrderStoreClientOptions = {},
): Omit<CosmosClientOptions, 'endpoint' | 'key' | 'aadCredentials'> {
  return {
    connectionPolicy: {
      enableEndpointDiscovery: options.endpointDiscovery ?? true,
      requestTimeout: options.requestTimeoutMs ?? 10_000,
      retryOptions: { maxRetryAttemptCount: 0, fixedRetryIntervalInMilliseconds: 0, maxWaitTimeInSeconds: 0 },
    },
  };
}

/**
 * The orders container (named by {@link resolveCosmosResourceNames}); nothing is created here (Bicep provisions it
 * on Azure, the local host on the emulator).
 */
export function ordersContainer(
  client: CosmosClient,
  names: CosmosResourceNames = DEFAULT_COSMOS_RESOURCES,
): Container {
  return client.database(names.database).container(names.container);
}
