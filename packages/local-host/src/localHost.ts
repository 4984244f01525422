import type { DestinationStream, Logger } from 'pino';
import type { FunctionRegistration } from 'ledger-convoy/functions/register';
import type { App } from 'ledger-convoy/functions/app';
import type { LocalApplicationInsightsModule, LocalTelemetry } from './applicationInsights.js';
import { applyToProcessEnv, mergeSettings, readLocalSettings } from './config/appSettings.js';
import type { AppSettings } from './config/appSettings.js';
import { loadServiceBusHostOptions } from './config/serviceBusHostOptions.js';
import type { ServiceBusHostOptions } from './config/serviceBusHostOptions.js';
import type { CosmosDBHost } from './cosmos/cosmosDBHost.js';
import type { EmulatorStack } from './emulatorStack.js';
import { createHostLogger } from './logging/logger.js';
import { ThroughputSummary } from './logging/throughputSummary.js';
import { repoPath } from './paths.js';
import type { StartupTimeline } from './startupTimeline.js';

/** Options of {@link startLocalHost}; tests pass 0 for every port. */
export interface LocalHostOptions {
  /** Start the embedded emulators; false uses local.settings.json and the environment. @default true */
  emulators?: boolean;
  /** Interface for the HTTP functions. @default '127.0.0.1' */
  host?: string;
  /** HTTP port of the functions. @default 7071 */
  httpPort?: number;
  /** @default 5672 */
  serviceBusPort?: number;
  /** Admin view of the Service Bus emulator (the CLI's `sessions`); 0 disables it. @default 5300 */
  serviceBusAdminPort?: number;
  /** HTTPS port of the Service Bus management API; 0 disables it. @default 5301, 0 when `serviceBusAdminPort` is 0 */
  serviceBusAdminHttpsPort?: number;
  /** @default 8081 */
  cosmosPort?: number;
  /** Request units a second each container of the embedded Cosmos DB emulator serves (`--cosmos-throughput`). @default undefined (unmetered) */
  cosmosThroughput?: number;
  /** Both embedded emulators answer each operation no earlier than this many ms after it arrived, plus up to 10 % jitter (`--latency`). @default 0 */
  latencyMs?: number;
  /** Durable emulator data; in memory when unset. @default undefined */
  dataDir?: string;
  /** The Service Bus emulator's entity file (a test adds a downstream's subscription). @default `infra/servicebus.config.json` */
  serviceBusEntityFile?: string;
  /** The functions to serve. @default the app's own (`composeApp()` of `src/functions/app.ts`, started here) */
  registrations?: readonly FunctionRegistration[];
  /** @default `local.settings.json` in the repository root */
  settingsFile?: string;
  /** @default `host.json` in the repository root */
  hostJsonFile?: string;
  /** Overrides of host.json's Service Bus settings (tests shorten `sessionIdleTimeoutMs`). @default {} */
  serviceBus?: Partial<ServiceBusHostOptions>;
  /** @default a pino logger at the LOG_LEVEL setting (`warn` with `quiet`), writing to `logDestination` */
  logger?: Logger;
  /** Where the host's and the app's log lines go (`npm start`: JSON or human lines, held until the banner). @default stdout */
  logDestination?: DestinationStream;
  /** Log warnings and errors only, the app included (sets LOG_LEVEL=warn). @default false */
  quiet?: boolean;
  /**
   * Loads the Application Insights SDK, started for the app's own functions when `APPLICATIONINSIGHTS_CONNECTION_STRING`
   * is set (tests pass a stand-in). @default `import('applicationinsights')`
   */
  loadApplicationInsights?: () => Promise<LocalApplicationInsightsModule>;
  /** Records when each part of the start finished (`npm start` reports it). @default none */
  timeline?: StartupTimeline;
}

/** The running local stack. */
export interface LocalHost {
  /** Base URL of the HTTP functions, e.g. `http://127.0.0.1:7071/api`. */
  readonly httpUrl: string;
  /** The connection settings the app runs with. */
  readonly connectionStrings: { readonly ServiceBusConnection?: string; readonly CosmosConnection?: string };
  /** The Service Bus emulator's admin port, when the emulators run. */
  readonly serviceBusAdminPort?: number;
  /** The Service Bus management API (connection string, certificate to trust), when the emulators run. */
  readonly serviceBusAdministration?: { readonly connectionString: string; readonly certFile: string };
  /** Every app setting the functions see. */
  readonly settings: AppSettings;
  /** The Cosmos DB triggers' host (a test closes it to hold the relay back while the processor commits). */
  readonly cosmosDB: CosmosDBHost;
  /** Whether the app's telemetry goes to Application Insights (then its alerts and metrics are there). */
  readonly applicationInsights: boolean;
  readonly logger: Logger;
  /** The app this host serves and started, unless it was given `registrations` instead. */
  readonly app: App | undefined;
  /**
   * Drains and stops everything: no new requests, messages or timer runs; in-flight ones finish and settle;
   * the app's `appTerminate` hook runs and its clients close; Application Insights flushes; the emulators stop;
   * `process.env` is restored.
   */
  close(): Promise<void>;
}

/** Starts the embedded emulators (unless told not to) and serves the functions in-process. */
export async function startLocalHost(options: LocalHostOptions = {}): Promise<LocalHost> {
  const hostOptions: ServiceBusHostOptions = {
    ...(await loadServiceBusHostOptions(options.hostJsonFile ?? repoPath('host.json'))),
    ...options.serviceBus,
  };
  const fileValues = await readLocalSettings(options.settingsFile ?? repoPath('local.settings.json'));
  // The emulator gets the database and container the app will look for (COSMOS_DATABASE / COSMOS_CONTAINER). Its
  // module loads the Service Bus SDK (connection string parsing), so it comes after the threads started.
  const resourceNames = import('ledger-convoy/adapters/cosmosClientOptions').then((m) =>
    m.resolveCosmosResourceNames(mergeSettings(fileValues, process.env)),
  );
  resourceNames.catch(() => undefined);
  const mark = (phase: string) => options.timeline?.mark(phase);
  // The emulators start first, in threads of their own, so they boot on the other core while this thread loads the
  // host's modules (the Azure SDKs, the app). Loaded on demand: against real Azure resources the (dev-only)
  // emulator code is never imported.
  const starting: Promise<EmulatorStack> | undefined =
    options.emulators === false
      ? undefined
      : import('./emulatorStack.js').then((m) =>
          m.startEmulatorStack({
            serviceBusPort: options.serviceBusPort,
            cosmosPort: options.cosmosPort,
            cosmosThroughput: options.cosmosThroughput,
            latencyMs: options.latencyMs,
            adminPort: options.serviceBusAdminPort,
            adminHttpsPort: options.serviceBusAdminHttpsPort,
            dataDir: options.dataDir,
            entityFile: options.serviceBusEntityFile,
            cosmosResources: resourceNames,
            timeline: options.timeline,
          }),
        );
  // Whatever happens next, a started stack is closed on failure (below) — so its rejection is observed here too.
  starting?.catch(() => undefined);
  const modules = await loadHostModules().catch(async (error: unknown) => {
    await starting?.then((stack) => stack.close()).catch(() => undefined);
    throw error;
  });
  mark('host modules loaded');
  const stack = await starting;
  mark('emulators ready');
  const cosmosResources = await resourceNames;

  // --quiet also quiets the app's own logger, which reads LOG_LEVEL like the host's.
  const overrides: Record<string, string> = {
    ...(stack
      ? { ServiceBusConnection: stack.serviceBusConnectionString, CosmosConnection: stack.cosmosConnectionString }
      : {}),
    ...(options.quiet ? { LOG_LEVEL: 'warn' } : {}),
  };
  const merged = mergeSettings(fileValues, process.env, overrides);
  // The outbox relay's trigger names its container through %COSMOS_DATABASE% / %COSMOS_CONTAINER%, which the host
  // must resolve: when unset, they are the names the app itself falls back to.
  const settings: AppSettings = {
    ...merged,
    COSMOS_DATABASE: merged.COSMOS_DATABASE || cosmosResources.database,
    COSMOS_CONTAINER: merged.COSMOS_CONTAINER || cosmosResources.container,
  };
  const logger =
    options.logger ?? createHostLogger({ level: settings.LOG_LEVEL || 'info', destination: options.logDestination });

  const summary = new ThroughputSummary();
  summary.start(logger);
  const stoppers: (() => Promise<void>)[] = [() => Promise.resolve(summary.stop())];
  let restoreEnv: () => void = () => undefined;
  let telemetry: LocalTelemetry | undefined;
  const appFunctions = options.registrations === undefined;
  let app: App | undefined;
  const stopAll = async (): Promise<void> => {
    await Promise.allSettled(stoppers.splice(0).map((stop) => stop()));
    // The app's own clients go before the emulators they talk to (its terminate hook, as on a graceful stop).
    await app?.terminate();
    await telemetry?.close();
    try {
      await stack?.close();
    } finally {
      restoreEnv();
    }
  };

  try {
    restoreEnv = applyToProcessEnv(settings);
    // Like src/index.ts on Azure: Application Insights first (when configured), so the app's clients are instrumented.
    if (appFunctions)
      telemetry = await (
        await import('./applicationInsights.js')
      ).startLocalTelemetry(settings, logger, options.loadApplicationInsights);
    if (appFunctions)
      app = await modules.loadApp(options.logDestination ? { logDestination: options.logDestination } : {});
    const functions = modules.groupFunctions(app?.functions ?? options.registrations ?? []);
    mark('functions loaded');

    // Triggers first, HTTP last: once the URL answers, messages are already being consumed.
    const serviceBus = modules.startServiceBusHost({
      functions: functions.serviceBus,
      settings,
      hostOptions,
      logger,
      summary,
    });
    stoppers.push(() => serviceBus.close());
    const cosmosDB = await modules.startCosmosDBHost({ functions: functions.cosmosDB, settings, logger, summary });
    stoppers.push(() => cosmosDB.close());
    mark('receivers started, relay leases owned');
    const timers = modules.startTimerHost({ functions: functions.timer, logger });
    stoppers.push(() => timers.close());
    const http = await modules.startHttpHost({
      functions: functions.http,
      logger,
      summary,
      host: options.host,
      port: options.httpPort ?? 7071,
    });
    stoppers.push(() => http.close());
    mark('HTTP answering');

    let closing: Promise<void> | undefined;
    return {
      httpUrl: http.url,
      connectionStrings: {
        ServiceBusConnection: settings.ServiceBusConnection,
        CosmosConnection: settings.CosmosConnection,
      },
      serviceBusAdminPort: stack?.serviceBusAdminPort,
      serviceBusAdministration: stack?.serviceBusAdministration,
      settings,
      cosmosDB,
      applicationInsights: telemetry?.enabled ?? false,
      logger,
      app,
      close: () => (closing ??= stopAll()),
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * The host's heavy modules (the Service Bus and Cosmos DB SDKs, the Functions library), loaded while the emulators
 * boot; and the app's (its schemas, CloudEvents, the webhook signer), which `loadApp` imports once the settings are
 * known: loaded with the others, they are ready then, and fill any time this thread would spend waiting for the
 * emulators.
 */
async function loadHostModules() {
  const [
    { groupFunctions, loadApp },
    { startHttpHost },
    { startServiceBusHost },
    { startCosmosDBHost },
    { startTimerHost },
  ] = await Promise.all([
    import('./functionRegistry.js'),
    import('./http/httpHost.js'),
    import('./servicebus/serviceBusHost.js'),
    import('./cosmos/cosmosDBHost.js'),
    import('./timer/timerHost.js'),
    import('ledger-convoy/functions/app'),
  ]);
  return { groupFunctions, loadApp, startHttpHost, startServiceBusHost, startCosmosDBHost, startTimerHost };
}
