import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CosmosResourceNames } from 'ledger-convoy/adapters/cosmosClientOptions';
import { startEmulatorThread, type EmulatorThread } from './emulatorThread.js';
import { repoPath } from './paths.js';
import type { StartupTimeline } from './startupTimeline.js';

/** Options of {@link startEmulatorStack}. */
export interface EmulatorStackOptions {
  /** AMQP port of the Service Bus emulator; 0 picks a free one. @default 5672 */
  serviceBusPort?: number;
  /** HTTP port of the Cosmos emulator; 0 picks a free one. @default 8081 */
  cosmosPort?: number;
  /** Request units a second each Cosmos DB container serves, answering 429 beyond it (`--cosmos-throughput`); unmetered when unset. @default undefined */
  cosmosThroughput?: number;
  /** Azure's round trip, simulated: both emulators answer each operation no earlier than this many ms after it arrived, plus up to 10 % jitter (`--latency`). @default 0 */
  latencyMs?: number;
  /** Port of the Service Bus emulator's admin view (health, sessions, ATOM API); 0 disables it. @default 5300 */
  adminPort?: number;
  /** HTTPS port of the Service Bus management API (the JS administration client); 0 disables it. @default 5301, 0 when `adminPort` is 0 */
  adminHttpsPort?: number;
  /** Where the HTTPS port's certificate is written, for `NODE_EXTRA_CA_CERTS`. @default `servicebus-admin-cert.pem` in the data directory, else in the OS temp directory */
  certOut?: string;
  /** Keeps both emulators' data in subdirectories of this directory; in memory when unset. @default undefined */
  dataDir?: string;
  /** The Service Bus entity file. @default `infra/servicebus.config.json` */
  entityFile?: string;
  /** The database and container the Cosmos DB emulator starts with (the app's `COSMOS_DATABASE` / `COSMOS_CONTAINER`). @default convoy / orders */
  cosmosResources?: CosmosResourceNames | Promise<CosmosResourceNames>;
  /** Records when each emulator answered. @default none */
  timeline?: StartupTimeline;
}

/** The running emulators and the connection strings the app's settings take. */
export interface EmulatorStack {
  readonly serviceBusConnectionString: string;
  readonly cosmosConnectionString: string;
  readonly cosmosEndpoint: string;
  /** The Service Bus emulator's admin port actually bound; undefined when disabled. */
  readonly serviceBusAdminPort: number | undefined;
  /** The management API for `ServiceBusAdministrationClient`: its connection string and the certificate to trust. */
  readonly serviceBusAdministration: { readonly connectionString: string; readonly certFile: string } | undefined;
  close(): Promise<void>;
}

/**
 * Starts the embedded Service Bus emulator with the repository's entity file and the Cosmos emulator with the
 * app's database and container, each in a worker thread of its own: the functions keep the main thread, and on a
 * machine with two or more cores the broker and the store no longer queue behind them. Azurite is not started: the
 * in-process host has no storage triggers, keeps timer schedules in memory and takes no locks, so nothing needs
 * `AzureWebJobsStorage` (only `func start` does).
 */
export async function startEmulatorStack(options: EmulatorStackOptions = {}): Promise<EmulatorStack> {
  const dataDir = options.dataDir;
  const certOut = options.certOut ?? join(dataDir ?? tmpdir(), 'servicebus-admin-cert.pem');
  if (dataDir) {
    await mkdir(join(dataDir, 'servicebus'), { recursive: true });
    await mkdir(join(dataDir, 'cosmos'), { recursive: true });
  }
  const marked = (started: Promise<EmulatorThread>, phase: string) =>
    started.then((thread) => (options.timeline?.mark(phase), thread));
  const [serviceBus, cosmos] = await Promise.allSettled([
    marked(
      startEmulatorThread({
        service: 'servicebus',
        options: {
          port: options.serviceBusPort ?? 5672,
          config: options.entityFile ?? repoPath('infra/servicebus.config.json'),
          dataDir: dataDir ? join(dataDir, 'servicebus') : undefined,
          adminPort: options.adminPort ?? 5300,
          adminHttpsPort: options.adminHttpsPort,
          certOut,
          // Without a data directory the certificate is still kept (beside npm start's bundle), so a start reuses it.
          certDir: dataDir ? undefined : repoPath('.start/servicebus-tls'),
          ...(options.latencyMs !== undefined && { latencyMs: options.latencyMs }),
        },
      }),
      'Service Bus emulator accepting',
    ),
    // Its query engine loads as soon as it accepts, so it is ready for the outbox relay's first lease query.
    marked(
      startEmulatorThread({
        service: 'cosmos',
        options: {
          port: options.cosmosPort ?? 8081,
          dataDir: dataDir ? join(dataDir, 'cosmos') : undefined,
          ...(options.cosmosThroughput !== undefined && { throughput: options.cosmosThroughput }),
          ...(options.latencyMs !== undefined && { latencyMs: options.latencyMs }),
        },
      }),
      'Cosmos DB emulator accepting',
    ),
  ]);
  // Both are closed whatever happens to the other; a failure (say, a store that could not flush) is not swallowed.
  const closeBoth = async () => {
    const closed = await Promise.allSettled(
      [serviceBus, cosmos].map((r) => (r.status === 'fulfilled' ? r.value.close() : undefined)),
    );
    const failed = closed.filter((c): c is PromiseRejectedResult => c.status === 'rejected');
    if (failed.length > 0)
      throw new AggregateError(
        failed.map((f) => f.reason),
        failed.map((f) => String(f.reason)).join('; '),
      );
  };
  if (serviceBus.status === 'rejected' || cosmos.status === 'rejected') {
    await closeBoth().catch(() => undefined);
    throw serviceBus.status === 'rejected' ? serviceBus.reason : (cosmos as PromiseRejectedResult).reason;
  }
  try {
    // The app's database and containers, created in the emulator's own thread (no SDK, no request to wait for
    // behind this thread's module loading). Their module is imported now, not with this one: it loads the Service
    // Bus SDK (settings parsing), which must not hold up the threads' start.
    const { appDatabase } = await import('./cosmosResources.js');
    await cosmos.value.ensureDatabases([appDatabase(await options.cosmosResources)]);
    options.timeline?.mark('Cosmos DB resources created');
  } catch (error) {
    await closeBoth().catch(() => undefined);
    throw error;
  }
  return {
    serviceBusConnectionString: serviceBus.value.connectionString,
    cosmosConnectionString: cosmos.value.connectionString,
    cosmosEndpoint: cosmos.value.endpoint ?? '',
    serviceBusAdminPort: serviceBus.value.adminPort,
    serviceBusAdministration: serviceBus.value.administrationConnectionString
      ? { connectionString: serviceBus.value.administrationConnectionString, certFile: certOut }
      : undefined,
    close: closeBoth,
  };
}
