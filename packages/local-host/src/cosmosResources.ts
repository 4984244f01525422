import { DEFAULT_COSMOS_RESOURCES, ORDERS_PARTITION_KEY } from 'ledger-convoy/adapters/cosmosClientOptions';
import type { CosmosResourceNames } from 'ledger-convoy/adapters/cosmosClientOptions';
import { LEASE_CONTAINER } from 'ledger-convoy/adapters/changeFeedLease';

/** The database and container the app expects by default (docs/architecture.md, "Names everyone shares"). @internal */
export const cosmosResources = { ...DEFAULT_COSMOS_RESOURCES, partitionKey: ORDERS_PARTITION_KEY } as const;

/**
 * The app's database with its container and the outbox relay's lease container (`leases`, partition key `/id`, as
 * the Cosmos DB trigger requires), each container as the body of its create request. `names` are the ones the app
 * resolves from `COSMOS_DATABASE` / `COSMOS_CONTAINER` (`resolveCosmosResourceNames`). `npm start`'s emulator starts
 * with them (`databases`); {@link ensureCosmosResources} creates them through the SDK.
 */
export function appDatabase(names: CosmosResourceNames = DEFAULT_COSMOS_RESOURCES): {
  id: string;
  containers: { id: string; partitionKey: { paths: string[] }; defaultTtl?: number }[];
} {
  return {
    id: names.database,
    containers: [
      // -1: TTL on without a default, so records carrying their own `ttl` (the inbox) expire and others stay.
      { id: names.container, partitionKey: { paths: [ORDERS_PARTITION_KEY] }, defaultTtl: -1 },
      { id: LEASE_CONTAINER, partitionKey: { paths: ['/id'] } },
    ],
  };
}

/**
 * Creates {@link appDatabase} through the SDK if missing (idempotent, safe on a durable emulator): for runs without
 * `npm start`'s stack, such as the chaos run. @internal
 */
export async function ensureCosmosResources(
  connectionString: string,
  names: CosmosResourceNames = DEFAULT_COSMOS_RESOURCES,
): Promise<void> {
  const { id, containers } = appDatabase(names);
  // Loaded here: the bodies above are all `npm start` needs of this module.
  const { CosmosClient } = await import('@azure/cosmos');
  const client = new CosmosClient(connectionString);
  try {
    const { database } = await client.databases.createIfNotExists({ id });
    // Both at once: each is a read, then a create when missing.
    await Promise.all(containers.map((container) => database.containers.createIfNotExists(container)));
  } finally {
    client.dispose();
  }
}
