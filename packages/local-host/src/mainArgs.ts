import { resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import type { LocalHostOptions } from './localHost.js';

/** What `npm start -- <flags>` asks for. */
export interface MainArgs {
  /** The options `startLocalHost` takes. */
  readonly host: LocalHostOptions;
  /** `--data-dir`, for the banner. */
  readonly dataDir?: string;
  /** `--console-port`: the operator console's port; undefined when 0 turned it off. */
  readonly consolePort?: number;
  /** `--json`: JSON log lines even on a terminal (they are JSON whenever stdout is not one). */
  readonly json: boolean;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('must be an integer 0-65535');
  return port;
}

function parseLatency(value: string): number {
  const ms = Number(value);
  if (!Number.isFinite(ms) || ms < 0) throw new InvalidArgumentError('must be a number of milliseconds ≥ 0');
  return ms;
}

function parseThroughput(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError('must be a positive number of request units a second');
  return n;
}

interface Flags {
  emulators: boolean;
  quiet?: boolean;
  json?: boolean;
  port: number;
  dataDir?: string;
  servicebusPort: number;
  cosmosPort: number;
  cosmosThroughput?: number;
  latency?: number;
  servicebusAdminPort: number;
  servicebusAdminHttpsPort?: number;
  hostJson?: string;
  consolePort: number;
}

/**
 * Parses the flags of `npm start` (`argv` without node and the script). Paths are resolved against `cwd`.
 * Commander prints help or an error and exits the process on `--help` or a bad flag.
 */
export function parseMainArgs(argv: readonly string[], cwd = process.cwd()): MainArgs {
  const flags = new Command()
    .name('npm start --')
    .description(
      'Run Ledger Convoy locally: embedded Service Bus and Cosmos DB emulators and the functions in-process.',
    )
    .option('--no-emulators', 'use local.settings.json (Values) and the environment instead of the embedded emulators')
    .option('--quiet', 'log warnings and errors only (otherwise LOG_LEVEL, default info)')
    .option('--json', 'JSON log lines on a terminal too (they are JSON whenever stdout is not a terminal)')
    .option('--port <port>', 'HTTP port of the functions (/api)', parsePort, 7071)
    .option('--data-dir <dir>', 'keep emulator data durably in this directory (in memory otherwise)')
    .option('--servicebus-port <port>', 'AMQP port of the Service Bus emulator', parsePort, 5672)
    .option('--cosmos-port <port>', 'HTTP port of the Cosmos DB emulator', parsePort, 8081)
    .option(
      '--cosmos-throughput <RU/s>',
      'request units a second each Cosmos DB container serves, answering 429 beyond it as Azure does (unmetered when unset)',
      parseThroughput,
    )
    .option(
      '--latency <ms>',
      "both emulators answer each operation no earlier than this after it arrived (+ up to 10 % jitter): Azure's round trip",
      parseLatency,
    )
    .option(
      '--servicebus-admin-port <port>',
      "port of the Service Bus emulator's admin view (0 turns it off)",
      parsePort,
      5300,
    )
    .option(
      '--servicebus-admin-https-port <port>',
      'HTTPS port of the Service Bus management API (default 5301; 0 turns it off)',
      parsePort,
    )
    .option('--console-port <port>', 'port of the operator console on 127.0.0.1 (0 turns it off)', parsePort, 7072)
    .option(
      '--host-json <file>',
      "host.json whose extensions.serviceBus settings the triggers use (default: the repository's)",
    )
    .parse([...argv], { from: 'user' })
    .opts<Flags>();
  const dataDir = flags.dataDir === undefined ? undefined : resolve(cwd, flags.dataDir);
  return {
    dataDir,
    consolePort: flags.consolePort === 0 ? undefined : flags.consolePort,
    json: flags.json === true,
    host: {
      emulators: flags.emulators,
      quiet: flags.quiet,
      httpPort: flags.port,
      dataDir,
      serviceBusPort: flags.servicebusPort,
      cosmosPort: flags.cosmosPort,
      cosmosThroughput: flags.cosmosThroughput,
      latencyMs: flags.latency,
      serviceBusAdminPort: flags.servicebusAdminPort,
      serviceBusAdminHttpsPort: flags.servicebusAdminHttpsPort,
      hostJsonFile: flags.hostJson === undefined ? undefined : resolve(cwd, flags.hostJson),
    },
  };
}
