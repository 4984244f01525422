import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CosmosClient } from '@azure/cosmos';
import { startEmulatorThread } from '../../local/emulatorThread.js';

let taken: Server;
let takenPort: number;

beforeAll(async () => {
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  takenPort = (taken.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((resolve) => taken.close(resolve));
});

describe('an emulator in a worker thread', () => {
  it('serves the SDK from its thread, and closing twice closes once', async () => {
    const cosmos = await startEmulatorThread({ service: 'cosmos', options: { port: 0 } });
    const [, key] = /AccountKey=([^;]+)/.exec(cosmos.connectionString) ?? [];
    const client = new CosmosClient({ endpoint: String(cosmos.endpoint), key: String(key), connectionPolicy: { enableEndpointDiscovery: false } });
    const { database } = await client.databases.createIfNotExists({ id: 'thread-check' });
    expect(database.id).toBe('thread-check');
    client.dispose();
    const first = cosmos.close();
    expect(cosmos.close()).toBe(first);
    await first;
  });

  it('rejects with the emulator and the reason when it cannot start, leaving no thread behind', async () => {
    await expect(startEmulatorThread({ service: 'cosmos', options: { port: takenPort } })).rejects.toThrow(/the cosmos emulator: .*EADDRINUSE/);
  });
});
