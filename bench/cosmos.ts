import { CosmosClient } from '@azure/cosmos';
import type { Container } from '@azure/cosmos';
import { start } from '../emulators/cosmos/index.js';

/*
 * `npm run bench:cosmos`: ops/s of the embedded Cosmos emulator driven by the real SDK, for create,
 * point read, transactional batch (create + upsert + replace) and a partition-scoped query, at
 * concurrency 1 and 50. Prints a table. Set BENCH_SECONDS to change the time per cell (default 2).
 */

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 2);
const CONCURRENCY = [1, 50];

type Operation = (worker: number, i: number) => Promise<unknown>;

async function measure(op: Operation, concurrency: number): Promise<{ opsPerSecond: number; roundTrips: number }> {
  const deadline = Date.now() + SECONDS * 1000;
  let done = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let i = 0; Date.now() < deadline; i += 1) {
        await op(worker, i);
        done += 1;
      }
    }),
  );
  return { opsPerSecond: done / ((Date.now() - started) / 1000), roundTrips: done };
}

function operations(c: Container, run: string): Record<string, Operation> {
  return {
    create: (w, i) => c.items.create({ id: `${run}-c-${w}-${i}`, orderId: `${run}-p-${w % 10}`, payload: 'x'.repeat(200) }),
    'point read': (w) => c.item(`seed-${w % 100}`, `seed-p-${w % 10}`).read(),
    'batch (3 ops)': (w, i) => {
      const pk = `${run}-b-${w}`;
      return c.items.batch(
        [
          { operationType: 'Create', resourceBody: { id: `inbox-${i}`, orderId: pk, ttl: 3600 } },
          { operationType: 'Upsert', resourceBody: { id: 'state', orderId: pk, seq: i } },
          { operationType: 'Create', resourceBody: { id: `outbox-${i}`, orderId: pk, type: 'outbox' } },
        ],
        pk,
      );
    },
    'partition query': (w) => c.items.query('SELECT * FROM c WHERE c.n >= 0', { partitionKey: `seed-p-${w % 10}` }).fetchAll(),
  };
}

const emulator = await start({ port: 0 });
const client = new CosmosClient({ endpoint: emulator.endpoint, key: emulator.key, connectionPolicy: { enableEndpointDiscovery: false } });
try {
  const { database } = await client.databases.createIfNotExists({ id: 'bench' });
  const { container } = await database.containers.createIfNotExists({ id: 'orders', partitionKey: { paths: ['/orderId'] }, defaultTtl: -1 });
  for (let i = 0; i < 100; i += 1) await container.items.create({ id: `seed-${i}`, orderId: `seed-p-${i % 10}`, n: i });
  // Warm up the JIT on both sides so the first cell is not penalised.
  for (const op of Object.values(operations(container, 'warm'))) {
    const until = Date.now() + 300;
    for (let i = 0; Date.now() < until; i += 1) await op(0, i);
  }
  const rows: Record<string, string | number>[] = [];
  for (const concurrency of CONCURRENCY) {
    for (const [name, op] of Object.entries(operations(container, `r${concurrency}`))) {
      emulator.resetCounters();
      const { opsPerSecond, roundTrips } = await measure(op, concurrency);
      const counted = emulator.counters().total;
      rows.push({ operation: name, concurrency, 'ops/s': Math.round(opsPerSecond), 'HTTP requests / op': Number((counted / roundTrips).toFixed(2)) });
    }
  }
  console.log(`Cosmos emulator, in-memory, ${SECONDS}s per cell, @azure/cosmos SDK over loopback HTTP`);
  console.table(rows);
} finally {
  client.dispose();
  await emulator.close();
}
