import { Worker } from 'node:worker_threads';
import type { StartOptions as CosmosStartOptions } from '../emulators/cosmos/index.js';

/** What a worker thread running one emulator is told to start. */
export type EmulatorWorkerData =
  | { service: 'servicebus'; options: { port: number; config: string; dataDir?: string; adminPort: number } }
  | { service: 'cosmos'; options: Pick<CosmosStartOptions, 'port' | 'dataDir'> };

/** What the thread answers. */
export type EmulatorWorkerReply =
  | { kind: 'started'; connectionString: string; endpoint?: string; adminPort?: number }
  | { kind: 'closed' }
  | { kind: 'failed'; message: string };

/** An emulator running in its own thread. */
export interface EmulatorThread {
  readonly connectionString: string;
  /** Cosmos only. */
  readonly endpoint: string | undefined;
  /** Service Bus only: the admin port bound, undefined when disabled. */
  readonly adminPort: number | undefined;
  /** Stops the emulator (it flushes its store) and ends the thread. */
  close(): Promise<void>;
}

/**
 * Starts one emulator in a worker thread. The thread loads the TypeScript sources through tsx, whatever loader the
 * caller runs under (`npm start`, the benches, vitest). Rejects with the emulator's own message if it cannot start.
 */
export async function startEmulatorThread(data: EmulatorWorkerData): Promise<EmulatorThread> {
  const worker = new Worker(new URL('./emulatorWorkerBoot.mjs', import.meta.url), { workerData: data });
  const next = (): Promise<EmulatorWorkerReply> =>
    new Promise((resolve, reject) => {
      const onExit = (code: number) => reject(new Error(`the ${data.service} emulator thread exited (code ${code})`));
      worker.once('message', (reply: EmulatorWorkerReply) => {
        worker.off('error', reject);
        worker.off('exit', onExit);
        resolve(reply);
      });
      worker.once('error', reject);
      worker.once('exit', onExit);
    });
  const started = await next().catch(async (error: unknown) => {
    await worker.terminate();
    throw error;
  });
  if (started.kind !== 'started') {
    await worker.terminate();
    throw new Error(started.kind === 'failed' ? started.message : `the ${data.service} emulator thread answered ${started.kind}`);
  }
  let closing: Promise<void> | undefined;
  return {
    connectionString: started.connectionString,
    endpoint: started.endpoint,
    adminPort: started.adminPort,
    close() {
      closing ??= (async () => {
        const reply = next();
        worker.postMessage('close');
        try {
          const answer = await reply;
          if (answer.kind === 'failed') throw new Error(`closing the ${data.service} emulator failed: ${answer.message}`);
        } finally {
          await worker.terminate();
        }
      })();
      return closing;
    },
  };
}
