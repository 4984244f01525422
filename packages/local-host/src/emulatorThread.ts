import { Worker } from 'node:worker_threads';
import type { DatabaseSeed, StartOptions as CosmosStartOptions } from '@ledger-convoy/cosmos-emulator';

/** What each emulator is started with. */
interface EmulatorOptionsByService {
  servicebus: {
    port: number;
    config: string;
    dataDir?: string;
    adminPort: number;
    adminHttpsPort?: number;
    certOut?: string;
    certDir?: string;
    latencyMs?: number;
  };
  cosmos: Pick<CosmosStartOptions, 'port' | 'dataDir' | 'throughput' | 'latencyMs'>;
}
type EmulatorService = keyof EmulatorOptionsByService;
export type EmulatorOptions<S extends EmulatorService = EmulatorService> = EmulatorOptionsByService[S];

/** One emulator to start: {@link startEmulatorThread}'s argument. */
type EmulatorStart = { [S in EmulatorService]: { service: S; options: EmulatorOptions<S> } }[EmulatorService];

/** The thread's `workerData`: the emulator whose code it loads. */
export interface EmulatorWorkerData {
  service: EmulatorService;
}

/** What the thread is told. */
export type EmulatorWorkerRequest =
  | { kind: 'start'; options: EmulatorOptions }
  | { kind: 'ensureDatabases'; databases: DatabaseSeed[] }
  | { kind: 'close' };

/** What the thread answers. */
export type EmulatorWorkerReply =
  | {
      kind: 'started';
      connectionString: string;
      endpoint?: string;
      adminPort?: number;
      administrationConnectionString?: string;
    }
  | { kind: 'databasesReady' }
  | { kind: 'closed' }
  | { kind: 'failed'; message: string };

/** An emulator running in its own thread. */
export interface EmulatorThread {
  readonly connectionString: string;
  /** Cosmos only. */
  readonly endpoint: string | undefined;
  /** Service Bus only: the admin port bound, undefined when disabled. */
  readonly adminPort: number | undefined;
  /** Service Bus only: the connection string for `ServiceBusAdministrationClient`, undefined when disabled. */
  readonly administrationConnectionString: string | undefined;
  /** Cosmos only: creates the databases and containers that are missing (`CosmosEmulator.ensureDatabases`). */
  ensureDatabases(databases: DatabaseSeed[]): Promise<void>;
  /** Stops the emulator (it flushes its store) and ends the thread. */
  close(): Promise<void>;
}

/** Threads `npm start`'s launcher (bin/local-host.mjs) started from its bundle before the host's code was loaded. */
interface LauncherWorkers {
  /** The bundled worker's entry point. */
  readonly script: URL;
  /** The thread already loading `service`'s emulator, once; undefined after. */
  take(service: EmulatorService): Worker | undefined;
}

const launcherWorkers = (): LauncherWorkers | undefined =>
  (globalThis as { [key: symbol]: LauncherWorkers | undefined })[Symbol.for('ledger-convoy.emulatorWorkers')];

/** Under `npm start`, the launcher's bundle of the worker entry `name` (beside the emulators'); else undefined. */
export function bundledWorkerScript(name: 'triggerWorker'): URL | undefined {
  const launcher = launcherWorkers();
  return launcher && new URL(`${name}.js`, launcher.script);
}

/**
 * A thread for `service`: the one `npm start`'s launcher started, else a new one from the bundle it built, else
 * (vitest, the benches) from the TypeScript source through tsx.
 */
function workerFor(service: EmulatorService): Worker {
  const launcher = launcherWorkers();
  const started = launcher?.take(service);
  if (started) return started;
  const script = launcher?.script ?? new URL('./emulatorWorkerBoot.mjs', import.meta.url);
  return new Worker(script, { workerData: { service } satisfies EmulatorWorkerData });
}

/**
 * Starts one emulator in a worker thread. Outside `npm start` the thread loads the TypeScript sources through tsx,
 * whatever loader the caller runs under (the benches, vitest). Rejects with the emulator's own message if it cannot
 * start.
 */
export async function startEmulatorThread(data: EmulatorStart): Promise<EmulatorThread> {
  const worker = workerFor(data.service);
  const name = `the ${data.service} emulator`;
  // Permanent listeners: an unhandled 'error' on a Worker would crash the host without draining.
  let failure: Error | undefined;
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  worker.on('error', (error) => {
    failure = error;
    process.stderr.write(`${name} failed: ${error.stack ?? error.message}\n`);
  });
  const next = (): Promise<EmulatorWorkerReply | undefined> =>
    Promise.race([
      new Promise<EmulatorWorkerReply>((resolve) => worker.once('message', resolve)),
      exit.then(() => undefined),
    ]);

  const reply = next();
  worker.postMessage({ kind: 'start', options: data.options } satisfies EmulatorWorkerRequest);
  const started = await reply;
  if (started?.kind !== 'started') {
    await worker.terminate();
    const why =
      started?.kind === 'failed' ? started.message : (failure?.message ?? 'its thread exited before it started');
    throw new Error(`${name}: ${why}`);
  }
  let closing: Promise<void> | undefined;
  return {
    connectionString: started.connectionString,
    endpoint: started.endpoint,
    adminPort: started.adminPort,
    administrationConnectionString: started.administrationConnectionString,
    async ensureDatabases(databases) {
      if (exited) throw new Error(`${name} has stopped`);
      const answered = next();
      worker.postMessage({ kind: 'ensureDatabases', databases } satisfies EmulatorWorkerRequest);
      const answer = await answered;
      if (answer?.kind !== 'databasesReady')
        throw new Error(`${name}: ${answer?.kind === 'failed' ? answer.message : 'its thread exited'}`);
    },
    close() {
      closing ??= (async () => {
        if (exited) {
          if (failure) throw new Error(`${name} had already stopped: ${failure.message}`);
          return;
        }
        const answered = next();
        worker.postMessage({ kind: 'close' } satisfies EmulatorWorkerRequest);
        try {
          const answer = await answered;
          if (answer?.kind === 'failed') throw new Error(`closing ${name} failed: ${answer.message}`);
          if (answer === undefined && failure) throw new Error(`${name} stopped while closing: ${failure.message}`);
        } finally {
          await worker.terminate();
        }
      })();
      return closing;
    },
  };
}
