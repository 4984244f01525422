import { writeFile } from 'node:fs/promises';
import { Command, InvalidArgumentError } from 'commander';
import { start } from './index.js';

/*
 * CLI: `npm run emulator:cosmos -- --port 8081 [--host 127.0.0.1] [--data-dir ./.cosmos]
 *   [--https [--cert-out ./cosmos-cert.pem]] [--partition-key-ranges 1] [--throughput <RU/s>] [--latency <ms>]`.
 * Fault rules can be added at run time with `POST /_emulator/faults`.
 */

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('must be 0-65535');
  return port;
}

function parseThroughput(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError('must be a positive number of request units a second');
  return n;
}

function parseLatency(value: string): number {
  const ms = Number(value);
  if (!Number.isFinite(ms) || ms < 0) throw new InvalidArgumentError('must be a number of milliseconds ≥ 0');
  return ms;
}

function parseRangeCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 256) throw new InvalidArgumentError('must be an integer from 1 to 256');
  return n;
}

const program = new Command()
  .name('cosmos-emulator')
  .description('Cosmos DB NoSQL emulator (HTTP or HTTPS) for the @azure/cosmos SDK')
  .option('--port <port>', 'port to listen on (0 = any free port)', parsePort, 8081)
  .option('--host <host>', 'interface to bind', '127.0.0.1')
  .option('--data-dir <dir>', 'keep data durably in this directory (in memory otherwise)')
  .option('--https', 'serve HTTPS with a self-signed certificate (kept in --data-dir when given)')
  .option('--cert-out <file>', 'with --https: write the certificate (PEM) here for clients to trust')
  .option(
    '--partition-key-ranges <n>',
    'serve each container as n partition key ranges (feed ranges, change feed leases)',
    parseRangeCount,
    1,
  )
  .option(
    '--throughput <RU/s>',
    'serve each container at most this many request units a second, answering 429/3200 beyond it (unmetered when unset)',
    parseThroughput,
  )
  .option(
    '--latency <ms>',
    "answer each request no earlier than this after it arrived (+ up to 10 % jitter): Azure's round trip",
    parseLatency,
    0,
  )
  .parse();

const options = program.opts<{
  port: number;
  host: string;
  dataDir?: string;
  https?: true;
  certOut?: string;
  partitionKeyRanges: number;
  throughput?: number;
  latency: number;
}>();
if (options.certOut !== undefined && options.https !== true) program.error('--cert-out needs --https');
const emulator = await start({
  port: options.port,
  host: options.host,
  dataDir: options.dataDir,
  https: options.https === true,
  partitionKeyRanges: options.partitionKeyRanges,
  throughput: options.throughput,
  latencyMs: options.latency,
  onError: (error) => console.error('cosmos emulator: unexpected error', error),
});
if (options.certOut !== undefined && emulator.certificatePem !== undefined) {
  await writeFile(options.certOut, emulator.certificatePem);
  console.log(`Certificate written to ${options.certOut} (trust it with NODE_EXTRA_CA_CERTS=${options.certOut})`);
}
console.log(`Cosmos DB emulator listening on ${emulator.endpoint}`);
console.log(`Connection string: ${emulator.connectionString}`);
if (options.dataDir !== undefined) console.log(`Durable data in ${options.dataDir}`);

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    emulator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}
