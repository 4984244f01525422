import type { RunningConsole } from '@ledger-convoy/cli/console';
import { performance } from 'node:perf_hooks';
// Only light modules here: the emulators' threads start before this thread loads the Azure SDKs (see localHost.ts).
import { createLogOutput } from './logging/logOutput.js';
import { startLocalHost } from './localHost.js';
import type { LocalHost } from './localHost.js';
import { parseMainArgs } from './mainArgs.js';
import { startupTimeline } from './startupTimeline.js';
import { errorMessage } from 'ledger-convoy/core';

/*
 * `npm start`: the embedded Service Bus and Cosmos emulators plus the app's functions in-process, with the
 * Functions host's trigger semantics. Azurite is not started: nothing in-process needs AzureWebJobsStorage (no
 * storage triggers, timer schedules are kept in memory); run `npm run emulator:storage` only for `func start`.
 * Log lines are human-readable on a terminal and JSON otherwise (or with --json), and come after the banner.
 */

// The launcher (bin/local-host.mjs) says when the bundles were current: checked, or rebuilt.
const bundled = Number(process.env.CONVOY_START_BUNDLES_AT_MS);
const timeline = startupTimeline(
  Number.isFinite(bundled) && bundled > 0 ? [{ phase: 'bundles current', atMs: bundled }] : [],
);
const args = parseMainArgs(process.argv.slice(2));
const logs = createLogOutput({ pretty: process.stdout.isTTY === true && !args.json });

let host: LocalHost;
try {
  host = await startLocalHost({ ...args.host, logDestination: logs, timeline });
} catch (error) {
  await logs.open();
  console.error(`npm start: ${errorMessage(error)}`);
  process.exit(1);
}

let operatorConsole: RunningConsole | undefined;
if (args.consolePort !== undefined) {
  try {
    // Loaded only now: the console (and its telemetry tap) is not part of what a posted ledger waits for.
    operatorConsole = await (await import('./localConsole.js')).startLocalConsole(host, { port: args.consolePort });
    timeline.mark('console serving');
  } catch (error) {
    await logs.open();
    console.error(
      `npm start: the operator console did not start (${errorMessage(error)}); pass --console-port <port>, or 0 to go without it.`,
    );
    await host.close();
    process.exit(1);
  }
}

const { startupBanner } = await import('./startupBanner.js');
process.stderr.write(
  `${startupBanner(host, { dataDir: args.dataDir, hostJsonFile: args.host.hostJsonFile, consoleUrl: operatorConsole?.url }).join('\n')}\n`,
);
const build = process.env.CONVOY_START_BUILD_MS;
host.logger.info(
  {
    startup: timeline.marks(),
    processStartedAt: Math.round(performance.timeOrigin),
    ...(build !== undefined && { buildMs: Number(build) }),
  },
  `ready ${(timeline.marks().find((m) => m.phase === 'HTTP answering')?.atMs ?? 0) / 1000} s after the process started${build !== undefined ? ` (the bundle was rebuilt in ${Number(build) / 1000} s)` : ''}`,
);
await logs.open();

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
