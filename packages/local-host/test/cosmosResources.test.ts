import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CosmosClient } from '@azure/cosmos';
import { start } from '@ledger-convoy/cosmos-emulator';
import type { CosmosEmulator } from '@ledger-convoy/cosmos-emulator';
import { cosmosResources, ensureCosmosResources } from '../src/cosmosResources.js';

let emulator: CosmosEmulator;
beforeAll(async () => {
  emulator = await start({ port: 0 });
});
afterAll(async () => {
  await emulator.close();
});

describe('ensureCosmosResources', () => {
  it('creates the convoy database and the orders container (/orderId, TTL on without default), idempotently', async () => {
    await ensureCosmosResources(emulator.connectionString);
    await ensureCosmosResources(emulator.connectionString);
    const client = new CosmosClient(emulator.connectionString);
    try {
      const container = client.database(cosmosResources.database).container(cosmosResources.container);
      const { resource } = await container.read();
      expect(resource?.partitionKey?.paths).toEqual(['/orderId']);
      expect(resource?.defaultTtl).toBe(-1);
      await container.items.create({ id: 'x', orderId: 'o-1' });
      const { resource: item } = await container.item('x', 'o-1').read<{ orderId: string }>();
      expect(item?.orderId).toBe('o-1');
    } finally {
      client.dispose();
    }
  });

  it('creates the database and container the app is configured for (COSMOS_DATABASE / COSMOS_CONTAINER)', async () => {
    await ensureCosmosResources(emulator.connectionString, { database: 'convoy-green', container: 'orders-green' });
    const client = new CosmosClient(emulator.connectionString);
    try {
      const { resource } = await client.database('convoy-green').container('orders-green').read();
      expect(resource?.partitionKey?.paths).toEqual(['/orderId']);
    } finally {
      client.dispose();
    }
  });
});
