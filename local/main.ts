import { Command, InvalidArgumentError } from 'commander';
import { startLocalHost } from './localHost.js';
import type { LocalHost } from './localHost.js';

/*
 * `npm start`: the embedded Service Bus and Cosmos emulators plus the app's functions in-process, with the
 * Functions host's trigger semantics. Azurite is not started: nothing in-process needs AzureWebJobsStorage (no
 * storage triggers, timer schedules are kept in memory); run `npm run emulator:storage` only for `func start`.
 */

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('must be an integer 0-65535');
  return port;
}

interface MainOptions {
  emulators: boolean;
  quiet?: boolean;
  port: number;
  dataDir?: string;
  servicebusPort: number;
  cosmosPort: number;
  servicebusAdminPort: number;
}

const program = new Command()
  .name('npm start --')
  .description('Run Ledger Convoy locally: embedded Service Bus and Cosmos DB emulators and the functions in-process.')
  .option('--no-emulators', 'use local.settings.json (Values) and the environment instead of the embedded emulators')
  .option('--quiet', 'log warnings and errors only (otherwise LOG_LEVEL, default info)')
  .option('--port <port>', 'HTTP port of the functions (/api)', parsePort, 7071)
  .option('--data-dir <dir>', 'keep emulator data durably in this directory (in memory otherwise)')
  .option('--servicebus-port <port>', 'AMQP port of the Service Bus emulator', parsePort, 5672)
  .option('--cosmos-port <port>', 'HTTP port of the Cosmos DB emulator', parsePort, 8081)
  .option('--servicebus-admin-port <port>', "port of the Service Bus emulator's admin view (0 turns it off)", parsePort, 5300)
  .parse();

const options = program.opts<MainOptions>();

let host: LocalHost;
try {
  host = await startLocalHost({
    emulators: options.emulators,
    quiet: options.quiet,
    httpPort: options.port,
    dataDir: options.dataDir,
    serviceBusPort: options.servicebusPort,
    cosmosPort: options.cosmosPort,
    serviceBusAdminPort: options.servicebusAdminPort,
  });
} catch (error) {
  console.error(`npm start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

const banner = [
  'Ledger Convoy is running locally.',
  `  Functions (HTTP)      ${host.httpUrl}`,
  `  ServiceBusConnection  ${host.connectionStrings.ServiceBusConnection ?? '(identity-based, see settings)'}`,
  `  CosmosConnection      ${host.connectionStrings.CosmosConnection ?? '(identity-based, see settings)'}`,
  ...(host.serviceBusAdminPort !== undefined ? [`  Service Bus admin     http://127.0.0.1:${host.serviceBusAdminPort}/`] : []),
  ...(options.dataDir ? [`  Durable data          ${options.dataDir}`] : []),
  'Ctrl-C drains in-flight messages and stops; press it twice to exit at once.',
];
process.stderr.write(`${banner.join('\n')}\n`);

let draining = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (draining) {
      process.stderr.write('Second interrupt: exiting without draining.\n');
      process.exit(130);
    }
    draining = true;
    process.stderr.write('Draining: finishing in-flight work (Ctrl-C again to exit at once)...\n');
    host.close().then(
      () => {
        process.stderr.write('Stopped.\n');
        process.exit(0);
      },
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}
