/**
 * Cosmos DB client settings for the order store, and the names of its resources (design: "Names everyone shares").
 */
import type { CosmosClient, CosmosClientOptions, Container } from '@azure/cosmos';

/** The app's database. */
export const COSMOS_DATABASE = 'convoy';
/** The app's container, partitioned on {@link ORDERS_PARTITION_KEY}. */
export const ORDERS_CONTAINER = 'orders';
/** Partition key path of {@link ORDERS_CONTAINER}. */
export const ORDERS_PARTITION_KEY = '/orderId';

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
 * (a 429 reaches the core, which backs off within `TRANSIENT_RETRY_BUDGET`, rule 8), and requests time out well
 * inside the message lock.
 */
export function orderStoreClientOptions(options: OrderStoreClientOptions = {}): Omit<CosmosClientOptions, 'endpoint' | 'key' | 'aadCredentials'> {
  return {
    connectionPolicy: {
      enableEndpointDiscovery: options.endpointDiscovery ?? true,
      requestTimeout: options.requestTimeoutMs ?? 10_000,
      retryOptions: { maxRetryAttemptCount: 0, fixedRetryIntervalInMilliseconds: 0, maxWaitTimeInSeconds: 0 },
    },
  };
}

/** True for an endpoint on this machine (the embedded or official emulator). */
export function isLoopbackEndpoint(endpoint: string): boolean {
  try {
    const host = new URL(endpoint).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\./.test(host);
  } catch {
    return false;
  }
}

/** The orders container; nothing is created here (Bicep provisions it on Azure, the local host on the emulator). */
export function ordersContainer(client: CosmosClient): Container {
  return client.database(COSMOS_DATABASE).container(ORDERS_CONTAINER);
}
