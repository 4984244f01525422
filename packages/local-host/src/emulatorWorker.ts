/**
 * Entry point of a worker thread that runs one embedded emulator, so the broker and the store work on the second
 * core while the functions run on the main thread. The thread loads its emulator's code at once (`workerData` names
 * the service), then waits for its options: `npm start` starts the threads before the host's own code is loaded.
 * Protocol: on `start` the thread posts `started` (or `failed`) once; on `close` it stops the emulator and posts
 * `closed`. Each thread loads only its own emulator's code.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { DatabaseSeed } from '@ledger-convoy/cosmos-emulator';
import type {
  EmulatorOptions,
  EmulatorWorkerData,
  EmulatorWorkerReply,
  EmulatorWorkerRequest,
} from './emulatorThread.js';

const port = parentPort;
if (!port) throw new Error('emulatorWorker.ts runs only as a worker thread');
const { service } = workerData as EmulatorWorkerData;
const post = (reply: EmulatorWorkerReply): void => port.postMessage(reply);

interface Running {
  close(): Promise<void>;
  ensureDatabases?: (databases: DatabaseSeed[]) => Promise<void>;
  started: Omit<Extract<EmulatorWorkerReply, { kind: 'started' }>, 'kind'>;
}

// Loading begins before the options come; a module that fails to load is reported when `start` asks for it.
const loading =
  service === 'servicebus' ? import('@ledger-convoy/servicebus-emulator') : import('@ledger-convoy/cosmos-emulator');
loading.catch(() => undefined);

async function start(options: EmulatorOptions): Promise<Running> {
  if (service === 'servicebus') {
    const sb = await (
      await import('@ledger-convoy/servicebus-emulator')
    ).start(options as EmulatorOptions<'servicebus'>);
    return {
      close: () => sb.close(),
      started: {
        connectionString: sb.connectionString,
        adminPort: sb.adminPort,
        administrationConnectionString: sb.administrationConnectionString,
      },
    };
  }
  const cosmos = await (await import('@ledger-convoy/cosmos-emulator')).start(options as EmulatorOptions<'cosmos'>);
  return {
    close: () => cosmos.close(),
    ensureDatabases: (databases) => cosmos.ensureDatabases(databases),
    started: { connectionString: cosmos.connectionString, endpoint: cosmos.endpoint },
  };
}

// The emulators' thread loads no app code (the core's errorMessage would bring the core into its bundle).
const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error));
let running: Promise<Running> | undefined;
port.on('message', (request: EmulatorWorkerRequest) => {
  if (request.kind === 'start' && running === undefined) {
    running = start(request.options);
    running.then(
      (r) => post({ kind: 'started', ...r.started }),
      (error: unknown) => post({ kind: 'failed', message: reason(error) }),
    );
  } else if (request.kind === 'ensureDatabases') {
    void (running ?? Promise.reject(new Error('not started')))
      .then((r) => {
        if (r.ensureDatabases === undefined) throw new Error(`the ${service} emulator has no databases`);
        return r.ensureDatabases(request.databases);
      })
      .then(
        () => post({ kind: 'databasesReady' }),
        (error: unknown) => post({ kind: 'failed', message: reason(error) }),
      );
  } else if (request.kind === 'close') {
    // A thread whose emulator never started (or failed to) has nothing to stop.
    void (running ?? Promise.reject(new Error('not started')))
      .then(
        (r) => r.close(),
        () => undefined,
      )
      .then(
        () => post({ kind: 'closed' }),
        (error: unknown) => post({ kind: 'failed', message: reason(error) }),
      );
  }
});
