/**
 * The embedded stack for the pipeline bench: the same emulators `npm start` runs (started once), and the
 * in-process Functions host started per phase with that phase's host options and functions.
 */
import { CosmosClient } from '@azure/cosmos';
import { COSMOS_DATABASE, ORDERS_CONTAINER } from '../../src/adapters/cosmosClientOptions.js';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { ServiceBusClient } from '@azure/service-bus';
import { pino } from 'pino';
import type { Logger } from 'pino';
import { startEmulatorStack, type EmulatorStack } from '@ledger-convoy/local-host';
import { loadApp } from '@ledger-convoy/local-host';
import type { ServiceBusHostOptions } from '@ledger-convoy/local-host';
import { startLocalHost, type LocalHost } from '@ledger-convoy/local-host';
import type { FunctionRegistration } from '../../src/functions/register.js';
import { ProcessedCounter } from './processedCounter.js';

/** A figure of the Cosmos emulator's counters by operation kind, plus `total`. */
export type ByKind = Record<string, number> & { total: number };

/** The Cosmos emulator's counters (`/_emulator/counters`): requests, request units charged and bytes written. */
export interface CosmosCounts {
  requests: ByKind;
  requestUnits: ByKind;
  bytesWritten: ByKind;
}

/** The emulators, a client of them, and the app's function definitions. */
export interface BenchStack {
  readonly emulators: EmulatorStack;
  /** The bench's own client, for sending input. */
  readonly bus: ServiceBusClient;
  /** The app's functions without its timers (their periodic queries would blur the Cosmos counts). */
  readonly appFunctions: readonly FunctionRegistration[];
  /** Starts the in-process host with these functions (host.json plus the overrides); counts what it processes. */
  startHost(options: HostPhaseOptions): Promise<BenchHost>;
  cosmosCounters(): Promise<CosmosCounts>;
  /** `committedAt` (epoch ms) of every stored event, by its key (the `messageId` on order-events). */
  outboxCommitTimes(): Promise<Map<string, number>>;
  resetCosmosCounters(): Promise<void>;
  close(): Promise<void>;
}

/** Host settings of one phase. */
interface HostPhaseOptions {
  registrations: readonly FunctionRegistration[];
  /** Applied over the repository's host.json, which the host reads itself; empty measures host.json as committed. */
  overrides: Partial<ServiceBusHostOptions>;
}

/** A running host and the messages its functions have processed so far. */
export interface BenchHost {
  readonly host: LocalHost;
  readonly processed: ProcessedCounter;
  /** Invocations (executions) of each function so far, by function name. */
  readonly invocations: Map<string, number>;
  /** Stops the host and drops the app's clients and order cache (the next phase starts cold). */
  close(): Promise<void>;
}

/**
 * Starts the emulators on free ports and points the app settings (`process.env`) at them; with `latencyMs`, both
 * answer each operation no earlier than that after it arrived (Azure's round trip, simulated).
 */
export async function startBenchStack(options: { latencyMs?: number } = {}): Promise<BenchStack> {
  const emulators = await startEmulatorStack({ serviceBusPort: 0, cosmosPort: 0, adminPort: 0, ...options });
  const previous = {
    ServiceBusConnection: process.env.ServiceBusConnection,
    CosmosConnection: process.env.CosmosConnection,
  };
  process.env.ServiceBusConnection = emulators.serviceBusConnectionString;
  process.env.CosmosConnection = emulators.cosmosConnectionString;
  const bus = new ServiceBusClient(emulators.serviceBusConnectionString);
  const app = await loadApp();
  const appFunctions = app.functions.filter((r) => r.kind !== 'timer');
  const counters = `${emulators.cosmosEndpoint.replace(/\/?$/, '/')}_emulator/counters`;
  // No local.settings.json: the environment alone configures the host.
  const settingsFile = join(tmpdir(), `convoy-bench-absent-${process.pid}.json`);

  return {
    emulators,
    bus,
    appFunctions,
    async startHost(options) {
      const processed = new ProcessedCounter();
      const invocations = new Map<string, number>();
      // Each phase starts cold: a new context, with no clients or order cache of the phase before.
      await app.start();
      const host = await startLocalHost({
        emulators: false,
        httpPort: 0,
        settingsFile,
        registrations: options.registrations.map((r) => counted(r, invocations)),
        quiet: true,
        logger: countingLogger(processed),
        serviceBus: options.overrides,
      });
      return {
        host,
        processed,
        invocations,
        async close() {
          await host.close();
          await app.terminate();
        },
      };
    },
    async cosmosCounters() {
      const response = await fetch(counters);
      if (!response.ok) throw new Error(`GET ${counters}: ${response.status}`);
      const { requestUnits, bytesWritten, ...requests } = (await response.json()) as ByKind & {
        requestUnits: ByKind;
        bytesWritten: ByKind;
      };
      return { requests: requests as ByKind, requestUnits, bytesWritten };
    },
    async outboxCommitTimes() {
      const client = new CosmosClient({
        connectionString: emulators.cosmosConnectionString,
        connectionPolicy: { enableEndpointDiscovery: false },
      });
      try {
        const { resources } = await client
          .database(COSMOS_DATABASE)
          .container(ORDERS_CONTAINER)
          .items.query<{ key: string; committedAt: string }>(
            "SELECT c.key, c.committedAt FROM c WHERE c.docType = 'entry' AND c.status = 'applied'",
            { maxItemCount: 10_000 },
          )
          .fetchAll();
        return new Map(resources.map((r) => [r.key, Date.parse(r.committedAt)]));
      } finally {
        client.dispose();
      }
    },
    async resetCosmosCounters() {
      const response = await fetch(counters, { method: 'DELETE' });
      if (!response.ok) throw new Error(`DELETE ${counters}: ${response.status}`);
    },
    async close() {
      await app.terminate();
      await bus.close();
      await emulators.close();
      for (const [key, value] of Object.entries(previous)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    },
  };
}

/** The registration with its handler counting each invocation into `invocations` (the executions Azure bills). */
function counted(registration: FunctionRegistration, invocations: Map<string, number>): FunctionRegistration {
  const handler = registration.options.handler as (...args: unknown[]) => unknown;
  const counting = (...args: unknown[]): unknown => {
    invocations.set(registration.name, (invocations.get(registration.name) ?? 0) + 1);
    return handler(...args);
  };
  return { ...registration, options: { ...registration.options, handler: counting } } as FunctionRegistration;
}

/**
 * The host's logger: lines are parsed and counted (debug, for the session trigger's "session accepted"), warnings
 * and errors still reach stderr.
 */
function countingLogger(processed: ProcessedCounter): Logger {
  return pino(
    { level: 'debug', base: { host: 'local' } },
    {
      write(line: string) {
        const record = JSON.parse(line) as Record<string, unknown>;
        processed.record(record);
        if (typeof record.level === 'number' && record.level >= 40) process.stderr.write(line);
      },
    },
  );
}
