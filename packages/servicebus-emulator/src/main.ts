import { Command, InvalidArgumentError } from 'commander';
import { start } from './index.js';

/**
 * CLI: `servicebus-emulator --port 5672 --config Config.json [--data-dir d] [--admin-port 5300]
 * [--admin-https-port 5301] [--cert-out cert.pem] [--latency <ms>]`.
 */
async function main(): Promise<void> {
  const program = new Command()
    .name('servicebus-emulator')
    .description('Service Bus emulator: AMQP 1.0 for the unmodified Azure SDKs, no Docker')
    .option('--port <port>', 'AMQP port (0 = any free port)', '5672')
    .option('--config <file>', 'Config.json in the official emulator format (default: a namespace without entities)')
    .option('--data-dir <dir>', 'keep messages and session state on disk')
    .option('--admin-port <port>', 'HTTP admin port: health, stats, management API (0 disables)', '5300')
    .option(
      '--admin-https-port <port>',
      'HTTPS management API port, for the JS administration client (0 disables)',
      '5301',
    )
    .option('--cert-out <file>', "write the HTTPS port's self-signed certificate (PEM) here, for NODE_EXTRA_CA_CERTS")
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .option('--allow-any-key', 'accept any shared access signature and key (credentials are checked otherwise)')
    .option(
      '--latency <ms>',
      "answer each AMQP operation no earlier than this after it arrived (+ up to 10 % jitter): Azure's round trip",
      parseLatency,
      0,
    )
    .parse();
  const o = program.opts<{
    port: string;
    config?: string;
    dataDir?: string;
    adminPort: string;
    adminHttpsPort: string;
    certOut?: string;
    host: string;
    allowAnyKey?: boolean;
    latency: number;
  }>();
  const emulator = await start({
    port: Number(o.port),
    config: o.config,
    dataDir: o.dataDir,
    adminPort: Number(o.adminPort),
    adminHttpsPort: Number(o.adminHttpsPort),
    certOut: o.certOut,
    host: o.host,
    allowAnyKey: o.allowAnyKey === true,
    latencyMs: o.latency,
    log: (level, message) => console.error(`[servicebus] ${level}: ${message}`),
  });
  // One line on stdout, machine-readable, so scripts can pick up the bound ports.
  console.log(
    JSON.stringify({
      status: 'listening',
      port: emulator.port,
      adminPort: emulator.adminPort ?? null,
      adminHttpsPort: emulator.adminHttpsPort ?? null,
      connectionString: emulator.connectionString,
      administrationConnectionString: emulator.administrationConnectionString ?? null,
    }),
  );
  const stop = (): void => {
    void emulator.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function parseLatency(value: string): number {
  const ms = Number(value);
  if (!Number.isFinite(ms) || ms < 0) throw new InvalidArgumentError('must be a number of milliseconds ≥ 0');
  return ms;
}

main().catch((err: unknown) => {
  console.error(`[servicebus] ${(err as Error).message ?? String(err)}`);
  process.exit(1);
});
