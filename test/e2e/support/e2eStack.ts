import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceBusClient } from '@azure/service-bus';
import type { CliIo } from '@ledger-convoy/cli';
import { runCli } from '@ledger-convoy/cli';
import { startLocalHost, type LocalHost, type LocalHostOptions } from '@ledger-convoy/local-host';

/** The embedded stack started in-process, a scratch directory, and a way to run the CLI against both. */
export interface E2eStack {
  host: LocalHost;
  /** Function app base URL as the CLI takes it (`--http`): the host's URL without `/api`. */
  appUrl: string;
  serviceBusConnection: string;
  /** An SDK client of the stack's Service Bus, for looking behind the CLI's back. */
  bus: ServiceBusClient;
  /** A fresh directory for expectation files and corrected bodies, removed on close. */
  dir: string;
  /** Runs `convoy <args…> --servicebus … --http …` in-process and returns its exit code and output. */
  cli(args: string[]): Promise<CliRun>;
  close(): Promise<void>;
}

/** What one CLI run printed. */
export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/**
 * Starts the whole local stack on free ports with the app's own functions; warnings and errors only. `overrides`
 * change the host's options (the console's tests give the Service Bus emulator an admin port).
 */
export async function startE2eStack(overrides: Partial<LocalHostOptions> = {}): Promise<E2eStack> {
  const dir = await mkdtemp(join(tmpdir(), 'convoy-e2e-'));
  const host = await startLocalHost({
    emulators: true,
    httpPort: 0,
    serviceBusPort: 0,
    cosmosPort: 0,
    serviceBusAdminPort: 0,
    quiet: true,
    ...overrides,
  });
  const serviceBusConnection = host.connectionStrings.ServiceBusConnection;
  if (serviceBusConnection === undefined) throw new Error('the local host reported no Service Bus connection');
  const appUrl = host.httpUrl.replace(/\/api$/, '');
  const bus = new ServiceBusClient(serviceBusConnection, { retryOptions: { maxRetries: 1, timeoutInMs: 10_000 } });
  return {
    host,
    appUrl,
    serviceBusConnection,
    bus,
    dir,
    async cli(args) {
      const out: string[] = [];
      const err: string[] = [];
      const io: CliIo = { out: (t) => void out.push(t), err: (t) => void err.push(t), exitCode: 0 };
      // Flags win over the environment and any local.settings.json: they point at this stack.
      const code = await runCli([...args, '--servicebus', serviceBusConnection, '--http', appUrl], io);
      return { code, out: out.join('\n'), err: err.join('\n') };
    },
    async close() {
      await bus.close();
      await host.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
