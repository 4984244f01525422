import { CosmosClient } from '@azure/cosmos';

/** The database and container the app expects (design: "Names everyone shares"). */
export const cosmosResources = { database: 'convoy', container: 'orders', partitionKey: '/orderId' } as const;

/** Creates the app's database and container if missing (idempotent, safe on a durable emulator). */
export async function ensureCosmosResources(connectionString: string): Promise<void> {
  const client = new CosmosClient(connectionString);
  try {
    const { database } = await client.databases.createIfNotExists({ id: cosmosResources.database });
    await database.containers.createIfNotExists({
      id: cosmosResources.container,
      partitionKey: { paths: [cosmosResources.partitionKey] },
      // -1: TTL on without a default, so records carrying their own `ttl` (the inbox) expire and others stay.
      defaultTtl: -1,
    });
  } finally {
    client.dispose();
  }
}
