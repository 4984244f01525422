import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness } from './harness.js';

/** `ensureDatabases`: the databases and containers to have (`npm start` creates the app's so). */
const ORDERS = { id: 'orders', partitionKey: { paths: ['/orderId'] }, defaultTtl: -1 };
const LEASES = { id: 'leases', partitionKey: { paths: ['/id'] } };

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** What a container's definition and throughput say, without the ids and timestamps each creation gets. */
async function shapeOf(h: Awaited<ReturnType<typeof startHarness>>, db: string, id: string): Promise<unknown> {
  const container = h.client.database(db).container(id);
  const resource = (await container.read()).resource!;
  const { _rid, _self, _etag, _ts, ...definition } = resource;
  return { definition, throughput: (await container.readOffer()).resource?.content?.offerThroughput };
}

describe("the Cosmos DB emulator's ensureDatabases", () => {
  it('creates them, each container as a create request without throughput would have', async () => {
    const seeded = await startHarness();
    await seeded.emulator.ensureDatabases([{ id: 'convoy', containers: [ORDERS, LEASES] }]);
    const made = await startHarness();
    try {
      const database = (await made.client.databases.create({ id: 'convoy' })).database;
      for (const body of [ORDERS, LEASES]) await database.containers.create(body);
      for (const id of ['orders', 'leases'])
        expect(await shapeOf(seeded, 'convoy', id)).toEqual(await shapeOf(made, 'convoy', id));
      expect(await shapeOf(seeded, 'convoy', 'orders')).toMatchObject({
        definition: { partitionKey: { paths: ['/orderId'] }, defaultTtl: -1 },
        throughput: 400,
      });
      const orders = seeded.client.database('convoy').container('orders');
      await orders.items.create({ id: 'state', orderId: 'o-1' });
      expect((await orders.items.query('SELECT VALUE c.id FROM c').fetchAll()).resources).toEqual(['state']);
    } finally {
      await Promise.all([seeded.close(), made.close()]);
    }
  });

  it('leaves those a durable store already has as they are, and adds the missing ones', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'cosmos-seed-'));
    dirs.push(dataDir);
    const first = await startHarness({ dataDir });
    await first.emulator.ensureDatabases([{ id: 'convoy', containers: [ORDERS] }]);
    await first.client.database('convoy').container('orders').items.create({ id: 'state', orderId: 'o-1' });
    await first.close();
    const second = await startHarness({ dataDir });
    try {
      await second.emulator.ensureDatabases([{ id: 'convoy', containers: [ORDERS, LEASES] }]);
      expect((await second.client.database('convoy').container('orders').item('state', 'o-1').read()).statusCode).toBe(
        200,
      );
      expect((await second.client.database('convoy').container('leases').read()).resource?.partitionKey?.paths).toEqual(
        ['/id'],
      );
    } finally {
      await second.close();
    }
  });

  it('rejects a container the service would refuse, with the reason', async () => {
    const h = await startHarness();
    try {
      await expect(h.emulator.ensureDatabases([{ id: 'convoy', containers: [{ id: 'bad/id' }] }])).rejects.toThrow(
        /'id' is missing or invalid/,
      );
    } finally {
      await h.close();
    }
  });
});
