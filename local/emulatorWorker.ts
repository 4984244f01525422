/**
 * Entry point of a worker thread that runs one embedded emulator, so the broker and the store work on the second
 * core while the functions run on the main thread. Protocol: the thread posts `started` (or `failed`) once; on the
 * message `close` it stops the emulator and posts `closed`. Each thread loads only its own emulator's code.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { EmulatorWorkerData, EmulatorWorkerReply } from './emulatorThread.js';

const port = parentPort;
if (!port) throw new Error('emulatorWorker.ts runs only as a worker thread');
const data = workerData as EmulatorWorkerData;
const post = (reply: EmulatorWorkerReply): void => port.postMessage(reply);

try {
  const running =
    data.service === 'servicebus'
      ? await (await import('../emulators/servicebus/index.js')).start(data.options).then((sb) => ({ close: () => sb.close(), started: { connectionString: sb.connectionString, adminPort: sb.adminPort, administrationConnectionString: sb.administrationConnectionString } }))
      : await (await import('../emulators/cosmos/index.js')).start(data.options).then((c) => ({ close: () => c.close(), started: { connectionString: c.connectionString, endpoint: c.endpoint } }));
  port.on('message', (message: unknown) => {
    if (message !== 'close') return;
    running.close().then(
      () => post({ kind: 'closed' }),
      (error: unknown) => post({ kind: 'failed', message: error instanceof Error ? error.message : String(error) }),
    );
  });
  post({ kind: 'started', ...running.started });
} catch (error) {
  post({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
}
