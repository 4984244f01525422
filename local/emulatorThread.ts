import { Worker } from 'node:worker_threads';
import type { StartOptions as CosmosStartOptions } from '../emulators/cosmos/index.js';

/** What a worker thread running one emulator is told to start. */
export type EmulatorWorkerData =
  | { service: 'servicebus'; options: { port: number; config: string; dataDir?: string; adminPort: number; adminHttpsPort?: number; certOut?: string; certDir?: string } }
  | { service: 'cosmos'; options: Pick<CosmosStartOptions, 'port' | 'dataDir'> };

/** What the thread answers. */
export type EmulatorWorkerReply =
  | { kind: 'started'; connectionString: string; endpoint?: string; adminPort?: number; administrationConnectionString?: string }
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
  /** Stops the emulator (it flushes its store) and ends the thread. */
  close(): Promise<void>;
}

/**
 * The thread's entry point: next to this module when it runs compiled (`npm start` runs a bundle in which the worker
 * is an entry point of its own), else the TypeScript source through tsx (vitest, the benches).
 */
function workerScript(): URL {
  return import.meta.url.endsWith('.ts') ? new URL('./emulatorWorkerBoot.mjs', import.meta.url) : new URL('./emulatorWorker.js', import.meta.url);
}

/**
 * Starts one emulator in a worker thread. The thread loads the TypeScript sources through tsx, whatever loader the
 * caller runs under (`npm start`, the benches, vitest). Rejects with the emulator's own message if it cannot start.
 */
export async function startEmulatorThread(data: EmulatorWorkerData): Promise<EmulatorThread> {
  const worker = new Worker(workerScript(), { workerData: data });
  const name = `the ${data.service} emulator`;
  // Permanent listeners: an unhandled 'error' on a Worker would crash the host without draining.
  let failure: Error | undefined;
  let exited = false;
  const exit = new Promise<void>((resolve) => worker.once('exit', () => { exited = true; resolve(); }));
  worker.on('error', (error) => {
    failure = error;
    process.stderr.write(`${name} failed: ${error.stack ?? error.message}\n`);
  });
  const next = (): Promise<EmulatorWorkerReply | undefined> =>
    Promise.race([new Promise<EmulatorWorkerReply>((resolve) => worker.once('message', resolve)), exit.then(() => undefined)]);

  const started = await next();
  if (started?.kind !== 'started') {
    await worker.terminate();
    const why = started?.kind === 'failed' ? started.message : (failure?.message ?? 'its thread exited before it started');
    throw new Error(`${name}: ${why}`);
  }
  let closing: Promise<void> | undefined;
  return {
    connectionString: started.connectionString,
    endpoint: started.endpoint,
    adminPort: started.adminPort,
    administrationConnectionString: started.administrationConnectionString,
    close() {
      closing ??= (async () => {
        if (exited) {
          if (failure) throw new Error(`${name} had already stopped: ${failure.message}`);
          return;
        }
        const reply = next();
        worker.postMessage('close');
        try {
          const answer = await reply;
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
