import type { AddressInfo } from 'node:net';
import { RequestCounters } from './counters.js';
import type { CounterSnapshot } from './counters.js';
import { FaultInjector } from './faults.js';
import type { FaultRuleInput } from './faults.js';
import { EMULATOR_KEY } from './http/auth.js';
import { createEmulatorServer } from './http/server.js';
import { preloadQueryLibrary } from './query/cosmosdbQuery.js';
import { seed } from './seed.js';
import type { DatabaseSeed } from './seed.js';
import { DEFAULT_SCRIPT_LIMITS } from './scripts/scriptRun.js';
import type { ScriptLimits } from './scripts/scriptRun.js';
import { AccountStore } from './store/accountStore.js';
import { ThroughputBudget } from './throughputBudget.js';
import type { BudgetClock } from './throughputBudget.js';
import { loadOrCreateCertificate } from '@ledger-convoy/dev-certificate';

export { EMULATOR_KEY } from './http/auth.js';
export { FaultInjector } from './faults.js';
export type { FaultRule, FaultRuleInput } from './faults.js';
export type { CounterSnapshot } from './counters.js';
export { OperationKind } from './operations.js';
export type { DatabaseSeed } from './seed.js';

/** Options for {@link start}. */
export interface StartOptions {
  /** Port to listen on; 0 picks a free one. @default 8081 */
  port?: number;
  /** Interface to bind. @default '127.0.0.1' */
  host?: string;
  /** Directory for the durable write-ahead log; in memory when unset. @default undefined */
  dataDir?: string;
  /**
   * Serve HTTPS with a self-signed certificate for `localhost`, `127.0.0.1` and `::1`, generated at
   * start and kept in `dataDir` (when set) so restarts present the same one. Clients must trust
   * {@link CosmosEmulator.certificatePem} (`NODE_EXTRA_CA_CERTS`, or `new https.Agent({ ca })` passed
   * as the `agent` option of `CosmosClient`). @default false
   */
  https?: boolean;
  /**
   * Partition key ranges each container is served as (1-256): the hash v2 space split evenly, ids
   * "0".."n-1", so feed ranges, per-range change feeds and lease balancing are real. Hash v1
   * containers are always one range. @default 1
   */
  partitionKeyRanges?: number;
  /** Fault rules active from the start. @default [] */
  faults?: FaultRuleInput[];
  /** How often expired documents are swept from memory, in ms (reads check expiry anyway). @default 1000 */
  ttlSweepIntervalMs?: number;
  /**
   * Limits of server-side JavaScript (stored procedures, triggers, UDFs), which runs in a `node:vm` context:
   * a time budget, not a security boundary. @default { timeoutMs: 5000, operationBudget: 1000 }
   */
  scripts?: Partial<ScriptLimits>;
  /**
   * Request units a second each container serves (`--throughput`): a request on a container's items that arrives
   * when its budget is spent is answered 429 with substatus 3200 and `x-ms-retry-after-ms`, as Azure answers it
   * (metering: `throughputBudget.ts` and the README). Unmetered when unset. @default undefined
   */
  throughput?: number;
  /**
   * Azure's round trip, simulated: each response leaves no earlier than this many ms after its request arrived,
   * plus up to 10 % jitter, without holding up other requests or connections (`--latency`). The emulator's own
   * routes (`/_emulator/...`) are not delayed. @default 0
   */
  latencyMs?: number;
  /** The budget's clock, for tests. @default Date.now @internal */
  throughputClock?: BudgetClock;
  /** Receives unexpected errors (500s). @default undefined (ignored) */
  onError?: (error: unknown) => void;
  /**
   * Load the SQL query engine in the background once listening, so the first query does not wait for it (it is
   * most of a start otherwise). With false it loads on the first query, or when {@link CosmosEmulator.preloadQueryEngine}
   * is called: a caller that first sends requests of its own (creating databases) lets them go first. @default true
   */
  preloadQueryEngine?: boolean;
}

/** A running emulator. */
export interface CosmosEmulator {
  /** `http://host:port/`, or `https://host:port/` with {@link StartOptions.https}. */
  endpoint: string;
  /** The served certificate (PEM) when HTTPS is on, for clients to trust; `undefined` over HTTP. */
  certificatePem: string | undefined;
  /** The account key (the well-known emulator key). */
  key: string;
  /** `AccountEndpoint=...;AccountKey=...;` for `CosmosClient`/app settings. */
  connectionString: string;
  /** The port actually bound. */
  port: number;
  /** Fault injection handle (also reachable at `/_emulator/faults`). */
  faults: FaultInjector;
  /** Request counts per operation kind and the request units they charged (also `GET /_emulator/counters`). */
  counters(): CounterSnapshot;
  /** Sets the counters back to zero. */
  resetCounters(): void;
  /** Starts loading the SQL query engine in the background (see {@link StartOptions.preloadQueryEngine}). */
  preloadQueryEngine(): void;
  /**
   * Creates the databases and containers that are missing (each container as the body of its create request: `id`,
   * `partitionKey`, `defaultTtl`, …), as create requests without throughput headers would; leaves existing ones
   * (a durable store's) as they are.
   */
  ensureDatabases(databases: readonly DatabaseSeed[]): Promise<void>;
  /** Stops listening, closes connections and flushes the log. */
  close(): Promise<void>;
}

/** Starts a Cosmos DB NoSQL emulator in this process. */
export async function start(options: StartOptions = {}): Promise<CosmosEmulator> {
  const host = options.host ?? '127.0.0.1';
  const scripts = { ...DEFAULT_SCRIPT_LIMITS, ...options.scripts };
  for (const [name, value] of Object.entries(scripts)) {
    if (!Number.isInteger(value) || value < 1)
      throw new RangeError(`scripts.${name} must be a positive integer, got ${value}.`);
  }
  if (options.latencyMs !== undefined && !(Number.isFinite(options.latencyMs) && options.latencyMs >= 0))
    throw new RangeError(`latencyMs must be a number of milliseconds ≥ 0, got ${options.latencyMs}.`);
  if (options.throughput !== undefined && !(Number.isFinite(options.throughput) && options.throughput > 0))
    throw new RangeError(`throughput must be a positive number of request units a second, got ${options.throughput}.`);
  const tls = options.https === true ? await loadOrCreateCertificate(options.dataDir) : undefined;
  const store = await AccountStore.open({ dataDir: options.dataDir, partitionKeyRanges: options.partitionKeyRanges });
  const counters = new RequestCounters();
  const faults = new FaultInjector();
  for (const rule of options.faults ?? []) faults.add(rule);
  const server = createEmulatorServer({
    store,
    key: EMULATOR_KEY,
    counters,
    faults,
    onError: options.onError,
    tls,
    scripts,
    latencyMs: options.latencyMs,
    ...(options.throughput !== undefined && {
      throughput: { unitsPerSecond: options.throughput, budget: new ThroughputBudget(options.throughputClock) },
    }),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8081, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  if (options.preloadQueryEngine !== false) preloadQueryLibrary();
  const sweep = setInterval(() => store.sweepExpired(), options.ttlSweepIntervalMs ?? 1000);
  sweep.unref();
  const port = (server.address() as AddressInfo).port;
  const endpoint = `${tls === undefined ? 'http' : 'https'}://${host.includes(':') ? `[${host}]` : host}:${port}/`;
  return {
    endpoint,
    certificatePem: tls?.certPem,
    key: EMULATOR_KEY,
    connectionString: `AccountEndpoint=${endpoint};AccountKey=${EMULATOR_KEY};`,
    port,
    faults,
    counters: () => counters.snapshot(),
    resetCounters: () => counters.reset(),
    preloadQueryEngine: preloadQueryLibrary,
    ensureDatabases: (databases) => seed(store, databases),
    close: async () => {
      clearInterval(sweep);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await store.close();
    },
  };
}
