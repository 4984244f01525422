import { ChangeFeedStartFrom, CosmosClient, StatusCodes } from '@azure/cosmos';
import type { Container, Database, JSONObject } from '@azure/cosmos';
import { CosmosOutboxHoldStore } from '../src/adapters/outboxHoldCosmosStore.js';
import { CosmosOrderStore } from '../src/adapters/cosmosOrderStore.js';
import { outboxHoldId } from '../src/core/index.js';
import { start } from '@ledger-convoy/cosmos-emulator';

/*
 * `npm run bench:cosmos`: ops/s of the embedded Cosmos emulator driven by the real SDK, for create,
 * point read, transactional batch (create + upsert + replace) and a partition-scoped query, at
 * concurrency 1 and 50; then query latency in a 50,000-document container shaped like the app's
 * `orders` container (the app's own cross-partition reads: the holds gauge and list, the gap monitor's scan).
 * Prints two tables.
 * Last, change feed read throughput: one `getChangeFeedIterator` draining 1 KB documents over 100
 * partition keys from the beginning with `maxItemCount` 1,000.
 * BENCH_SECONDS sets the time per cell (default 2; a query cell always runs at least once);
 * BENCH_CASES=ops, query or changefeed runs one part only; BENCH_PARTITION_KEY_RANGES serves the
 * containers as that many ranges (default 1).
 */

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 2);
const CASES = process.env['BENCH_CASES'] ?? 'all';
const CONCURRENCY = [1, 50];
/** The large container: 200 orders × about 100 documents, like the chaos run's `orders` container. */
const ORDERS = 200;

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
    create: (w, i) =>
      c.items.create({ id: `${run}-c-${w}-${i}`, orderId: `${run}-p-${w % 10}`, payload: 'x'.repeat(200) }),
    'point read': (w) => c.item(`seed-${w % 100}`, `seed-p-${w % 10}`).read(),
    'batch (3 ops)': (w, i) => {
      const pk = `${run}-b-${w}`;
      return c.items.batch(
        [
          { operationType: 'Create', resourceBody: { id: `entry-${i}`, orderId: pk, type: 'entry' } },
          { operationType: 'Upsert', resourceBody: { id: 'state', orderId: pk, seq: i } },
          { operationType: 'Create', resourceBody: { id: `txn-${i}`, orderId: pk, type: 'transaction' } },
        ],
        pk,
      );
    },
    'partition query': (w) =>
      c.items.query('SELECT * FROM c WHERE c.n >= 0', { partitionKey: `seed-p-${w % 10}` }).fetchAll(),
  };
}

/**
 * One order's documents as the app writes them: the order document and 100 entry records (99 applied, each with its
 * event, and one parked); every tenth order has a parked entry, every fiftieth an outbox hold (two records held).
 */
function orderDocuments(order: number): Record<string, unknown>[] {
  const orderId = `order-${order}`;
  const committedAt = new Date(Date.UTC(2026, 0, 1)).toISOString();
  const docs: Record<string, unknown>[] = [
    {
      id: 'order',
      orderId,
      docType: 'order',
      state: { status: 'open', total: 0 },
      parked: order % 10 === 0 ? [{ sequence: 7, parkedAt: committedAt }] : [],
      rejected: [],
    },
  ];
  for (let i = 0; i < 100; i += 1)
    docs.push({
      id: `entry:order-processor:e-${i}`,
      orderId,
      docType: 'entry',
      status: i < 99 ? 'applied' : 'parked',
      entryId: `e-${i}`,
      sequence: i,
      committedAt,
    });
  if (order % 50 === 0) {
    const records = [48, 49].map((sequence) => ({
      id: `outbox-${sequence}`,
      entryId: `e-${sequence}`,
      sequence,
      committedAt,
      pendingTargets: ['webhook'],
    }));
    docs.push({
      id: outboxHoldId(orderId),
      docType: 'outbox-hold',
      orderId,
      failedTargets: ['webhook'],
      records,
      lastError: 'webhook answered HTTP 503',
      heldAt: committedAt,
      updatedAt: committedAt,
    });
  }
  return docs;
}

/** Loads every order's documents; resolves with how many were written. */
async function loadLargeContainer(c: Container): Promise<number> {
  const batches = Array.from({ length: ORDERS }, (_, order) => orderDocuments(order));
  let next = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      for (let order = next++; order < ORDERS; order = next++) {
        const docs = batches[order] ?? [];
        for (let i = 0; i < docs.length; i += 100) {
          const ops = docs
            .slice(i, i + 100)
            .map((resourceBody) => ({ operationType: 'Create' as const, resourceBody: resourceBody as JSONObject }));
          const response = await c.items.batch(ops, `order-${order}`);
          if (response.code !== 200) throw new Error(`loading order-${order} failed with ${response.code}`);
        }
      }
    }),
  );
  return batches.reduce((n, docs) => n + docs.length, 0);
}

/** The app's own cross-partition reads, through its adapters: the holds gauge, `convoy outbox list`, the gap monitor. */
function largeQueries(c: Container): Record<string, () => Promise<unknown>> {
  const holds = new CosmosOutboxHoldStore(c);
  const parked = new CosmosOrderStore(c);
  let order = 0;
  return {
    'cross: holds gauge (COUNT outbox-hold)': () => holds.count(),
    'cross: convoy outbox list (holds)': () => holds.list(),
    "partition: one order's hold (convoy outbox list --order)": () =>
      holds.list({ orderId: `order-${(order++ % 4) * 50}` }),
    'cross: gap monitor scan (parked orders)': () => parked.ordersWaiting(),
  };
}

/** Mean latency of `op`, repeated for BENCH_SECONDS (at least once). */
async function latency(op: () => Promise<unknown>): Promise<{ ms: number; runs: number }> {
  const started = Date.now();
  let runs = 0;
  do {
    await op();
    runs += 1;
  } while (Date.now() - started < SECONDS * 1000);
  return { ms: (Date.now() - started) / runs, runs };
}

/** Mean time per page while paging through 20,000 entry records, 1,000 a page, for BENCH_SECONDS (at least 2 pages). */
async function pagingLatency(c: Container): Promise<{ ms: number; runs: number }> {
  const iterator = c.items.query("SELECT * FROM c WHERE c.docType = 'entry'", { maxItemCount: 1000 });
  const started = Date.now();
  let runs = 0;
  do {
    const page = await iterator.fetchNext();
    if (page.resources.length === 0 && !iterator.hasMoreResults()) break;
    runs += 1;
  } while (iterator.hasMoreResults() && (runs < 2 || Date.now() - started < SECONDS * 1000));
  return { ms: (Date.now() - started) / Math.max(runs, 1), runs };
}

async function benchOperations(database: Database): Promise<void> {
  const { container } = await database.containers.createIfNotExists({
    id: 'orders',
    partitionKey: { paths: ['/orderId'] },
    defaultTtl: -1,
  });
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
      rows.push({
        operation: name,
        concurrency,
        'ops/s': Math.round(opsPerSecond),
        'HTTP requests / op': Number((counted / roundTrips).toFixed(2)),
      });
    }
  }
  console.log(`Cosmos emulator, in-memory, ${SECONDS}s per cell, @azure/cosmos SDK over loopback HTTP`);
  console.table(rows);
}

async function benchLargeContainer(database: Database): Promise<void> {
  const { container } = await database.containers.createIfNotExists({
    id: 'large',
    partitionKey: { paths: ['/orderId'] },
    defaultTtl: -1,
  });
  const loadStarted = Date.now();
  const documents = await loadLargeContainer(container);
  console.log(
    `Loaded ${documents} documents over ${ORDERS} orders in ${((Date.now() - loadStarted) / 1000).toFixed(1)}s`,
  );
  const rows: Record<string, string | number>[] = [];
  const cells: [string, () => Promise<{ ms: number; runs: number }>][] = [
    ...Object.entries(largeQueries(container)).map(
      ([name, op]): [string, () => Promise<{ ms: number; runs: number }>] => [name, () => latency(op)],
    ),
    ['cross: page through 20,000 entry docs (ms/page)', () => pagingLatency(container)],
  ];
  for (const [name, run] of cells) {
    emulator.resetCounters();
    const { ms, runs } = await run();
    rows.push({
      query: name,
      'ms/op': Number(ms.toFixed(2)),
      runs,
      'HTTP requests / op': Number((emulator.counters().total / runs).toFixed(2)),
    });
    console.log(`  ${name}: ${ms.toFixed(2)} ms/op over ${runs} run(s)`);
  }
  console.log(`Queries in a ${documents}-document container, concurrency 1, ${SECONDS}s per cell (at least one run)`);
  console.table(rows);
}

/** The change feed case: 50,000 documents of about 1 KB over 100 partition keys. */
const FEED_KEYS = 100;
const FEED_DOCS_PER_KEY = 500;

async function benchChangeFeed(database: Database): Promise<void> {
  const { container } = await database.containers.createIfNotExists({
    id: 'feed',
    partitionKey: { paths: ['/orderId'] },
  });
  const payload = 'x'.repeat(1000);
  let next = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      for (let key = next++; key < FEED_KEYS; key = next++) {
        for (let i = 0; i < FEED_DOCS_PER_KEY; i += 100) {
          const ops = Array.from({ length: 100 }, (_, j) => ({
            operationType: 'Create' as const,
            resourceBody: { id: `d-${i + j}`, orderId: `key-${key}`, payload },
          }));
          const response = await container.items.batch(ops, `key-${key}`);
          if (response.code !== 200) throw new Error(`loading key-${key} failed with ${response.code}`);
        }
      }
    }),
  );
  const total = FEED_KEYS * FEED_DOCS_PER_KEY;
  const iterator = container.items.getChangeFeedIterator({
    changeFeedStartFrom: ChangeFeedStartFrom.Beginning(),
    maxItemCount: 1000,
  });
  emulator.resetCounters();
  const started = Date.now();
  let changes = 0;
  for (;;) {
    const page = await iterator.readNext();
    if (page.statusCode === StatusCodes.NotModified) break;
    changes += page.count;
  }
  const seconds = (Date.now() - started) / 1000;
  if (changes !== total) throw new Error(`the change feed gave ${changes} changes, ${total} were written`);
  console.log(
    `Change feed: one iterator drained ${changes} changes (1 KB documents, ${FEED_KEYS} partition keys, maxItemCount 1000)`,
  );
  console.table([
    {
      changes,
      seconds: Number(seconds.toFixed(2)),
      'changes/s': Math.round(changes / seconds),
      'HTTP requests': emulator.counters().total,
    },
  ]);
}

const emulator = await start({ port: 0, partitionKeyRanges: Number(process.env['BENCH_PARTITION_KEY_RANGES'] ?? 1) });
// A long request timeout: without the query pre-filter one cross-partition query can take minutes.
const client = new CosmosClient({
  endpoint: emulator.endpoint,
  key: emulator.key,
  connectionPolicy: { enableEndpointDiscovery: false, requestTimeout: 600_000 },
});
try {
  const { database } = await client.databases.createIfNotExists({ id: 'bench' });
  if (CASES === 'all' || CASES === 'ops') await benchOperations(database);
  if (CASES === 'all' || CASES === 'query') await benchLargeContainer(database);
  if (CASES === 'all' || CASES === 'changefeed') await benchChangeFeed(database);
} finally {
  client.dispose();
  await emulator.close();
}
