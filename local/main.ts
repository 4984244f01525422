import type { RunningConsole } from '../cli/console/consoleServer.js';
import { startLocalConsole } from './localConsole.js';
import { startLocalHost } from './localHost.js';
import type { LocalHost } from './localHost.js';
import { parseMainArgs } from './mainArgs.js';
import { startupBanner } from './startupBanner.js';

/*
 * `npm start`: the embedded Service Bus and Cosmos emulators plus the app's functions in-process, with the
 * Functions host's trigger semantics. Azurite is not started: nothing in-process needs AzureWebJobsStorage (no
 * storage triggers, timer schedules are kept in memory); run `npm run emulator:storage` only for `func start`.
 */

const args = parseMainArgs(process.argv.slice(2));

let host: LocalHost;
try {
  host = await startLocalHost(args.host);
} catch (error) {
  console.error(`npm start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

let operatorConsole: RunningConsole | undefined;
if (args.consolePort !== undefined) {
  try {
    operatorConsole = await startLocalConsole(host, { port: args.consolePort });
  } catch (error) {
    console.error(`npm start: the operator console did not start (${error instanceof Error ? error.message : String(error)}); pass --console-port <port>, or 0 to go without it.`);
    await host.close();
    process.exit(1);
  }
}

process.stderr.write(`${startupBanner(host, { dataDir: args.dataDir, hostJsonFile: args.host.hostJsonFile, consoleUrl: operatorConsole?.url }).join('\n')}\n`);

let draining = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (draining) {
      process.stderr.write('Second interrupt: exiting without draining.\n');
      process.exit(130);
    }
    draining = true;
    process.stderr.write('Draining: finishing in-flight work (Ctrl-C again to exit at once)...\n');
    Promise.resolve(operatorConsole?.close())
      .then(() => host.close())
      .then(
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
