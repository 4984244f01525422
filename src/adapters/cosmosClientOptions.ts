/**
 * The names of the order store's Cosmos DB resources (docs/architecture.md, "Names everyone shares"); the client's
 * settings are `createCosmosClient`'s.
 */
import { SettingsError, setting } from './azureSettings.js';
import type { AppSettings } from './azureSettings.js';

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

// Cosmos DB resource ids: 1-255 characters, none of / \ ? #, not ending in a space.
const RESOURCE_ID = /^[^/\\?#]{0,254}[^/\\?# ]$/;

/**
 * Reads the app settings `COSMOS_DATABASE` (default `convoy`) and `COSMOS_CONTAINER` (default `orders`) — the
 * names Bicep outputs and sets on the function app. An empty setting counts as unset.
 * @throws SettingsError (`InvalidSetting`) for a name Cosmos DB would refuse.
 */
export function resolveCosmosResourceNames(settings: AppSettings): CosmosResourceNames {
  const read = (name: string, fallback: string): string => {
    const value = setting(settings, name) ?? fallback;
    if (RESOURCE_ID.test(value)) return value;
    throw new SettingsError(
      'InvalidSetting',
      name,
      `${name} must be a Cosmos DB resource id: 1-255 characters, none of / \\ ? #, not ending in a space.`,
    );
  };
  return Object.freeze({
    database: read('COSMOS_DATABASE', COSMOS_DATABASE),
    container: read('COSMOS_CONTAINER', ORDERS_CONTAINER),
  });
}

/** `convoy` / `orders`, the names Bicep and the local host provision by default: what no setting resolves to. */
export const DEFAULT_COSMOS_RESOURCES = resolveCosmosResourceNames({});
