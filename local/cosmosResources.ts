import { CosmosClient } from '@azure/cosmos';
import { DEFAULT_COSMOS_RESOURCES, ORDERS_PARTITION_KEY } from '../src/adapters/cosmosClientOptions.js';
import type { CosmosResourceNames } from '../src/adapters/cosmosClientOptions.js';
import { LEASE_CONTAINER } from '../src/adapters/changeFeedLease.js';

/** The database and container the app expects by default (docs/architecture.md, "Names everyone shares"). @internal */
export const cosmosResources = { ...DEFAULT_COSMOS_RESOURCES, partitionKey: ORDERS_PARTITION_KEY } as const;

/**
 * Creates the app's database, its container and the outbox relay's lease container (`leases`, partition key
 * `/id`, as the Cosmos DB trigger requires) if missing (idempotent, safe on a durable emulator). `names` are the
 * ones the app resolves from `COSMOS_DATABASE` / `COSMOS_CONTAINER` (`resolveCosmosResourceNames`).
 */
export async function ensureCosmosResources(connectionString: string, names: CosmosResourceNames = DEFAULT_COSMOS_RESOURCES): Promise<void> {
  const client = new CosmosClient(connectionString);
  try {
    const { database } = await client.databases.createIfNotExists({ id: names.database });
    // Both at once: each is a read, then a create when missing.
    await Promise.all([
      database.containers.createIfNotExists({
        id: names.container,
        partitionKey: { paths: [ORDERS_PARTITION_KEY] },
        // -1: TTL on without a default, so records carrying their own `ttl` (the inbox) expire and others stay.
        defaultTtl: -1,
      }),
      database.containers.createIfNotExists({ id: LEASE_CONTAINER, partitionKey: { paths: ['/id'] } }),
    ]);
  } finally {
    client.dispose();
  }
}
