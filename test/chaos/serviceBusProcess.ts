import { createServer } from 'node:net';
import { join } from 'node:path';
import { launchServiceBusEmulator } from '@ledger-convoy/local-host';

/** The Service Bus emulator as a child process that can be killed and restarted on the same port and data. */
export interface ServiceBusProcess {
  readonly port: number;
  readonly connectionString: string;
  /** SIGKILL, then a restart on the same port with the same `--data-dir` after `downMs`. */
  crashAndRestart(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

/** A port free right now on 127.0.0.1 (the emulator must come back on the same one after a crash). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Starts the Service Bus emulator's `src/main.ts` with durable data in `dataDir` and the entity file `configFile`. */
export async function startServiceBusProcess(options: {
  configFile: string;
  dataDir: string;
  logDir: string;
}): Promise<ServiceBusProcess> {
  const port = await freePort();
  const args = [
    '--port',
    String(port),
    '--admin-port',
    '0',
    '--admin-https-port',
    '0',
    '--config',
    options.configFile,
    '--data-dir',
    options.dataDir,
  ];
  let runs = 0;
  const launch = () => launchServiceBusEmulator(args, join(options.logDir, `servicebus-${++runs}.log`));
  let current = await launch();
  return {
    port,
    connectionString: current.connectionString,
    async crashAndRestart(downMs) {
      await current.child.kill9();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      current = await launch();
    },
    async stop() {
      await current.child.stop();
    },
  };
}
