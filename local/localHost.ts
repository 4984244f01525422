import type { Logger } from 'pino';
import { resolveCosmosResourceNames } from '../src/adapters/cosmosClientOptions.js';
import type { FunctionRegistration } from '../src/functions/register.js';
import { startLocalTelemetry } from './applicationInsights.js';
import type { LocalApplicationInsightsModule, LocalTelemetry } from './applicationInsights.js';
import { applyToProcessEnv, mergeSettings, readLocalSettings } from './config/appSettings.js';
import type { AppSettings } from './config/appSettings.js';
import { loadServiceBusHostOptions } from './config/serviceBusHostOptions.js';
import type { ServiceBusHostOptions } from './config/serviceBusHostOptions.js';
import type { EmulatorStack } from './emulatorStack.js';
import { closeAppFunctions, groupFunctions, loadAppFunctions } from './functionRegistry.js';
import { startHttpHost } from './http/httpHost.js';
import type { HttpHost } from './http/httpHost.js';
import { createHostLogger } from './logging/logger.js';
import { repoPath } from './paths.js';
import { startServiceBusHost } from './servicebus/serviceBusHost.js';
import type { ServiceBusHost } from './servicebus/serviceBusHost.js';
import { startCosmosDBHost } from './cosmos/cosmosDBHost.js';
import type { CosmosDBHost } from './cosmos/cosmosDBHost.js';
import { startTimerHost } from './timer/timerHost.js';
import type { TimerHost } from './timer/timerHost.js';

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
  /** Durable emulator data; in memory when unset. @default undefined */
  dataDir?: string;
  /** The functions to serve. @default the app's own (`src/functions/index.ts` → `registeredFunctions()`) */
  registrations?: readonly FunctionRegistration[];
  /** @default `local.settings.json` in the repository root */
  settingsFile?: string;
  /** @default `host.json` in the repository root */
  hostJsonFile?: string;
  /** Overrides of host.json's Service Bus settings (tests shorten `sessionIdleTimeoutMs`). @default {} */
  serviceBus?: Partial<ServiceBusHostOptions>;
  /** @default a pino logger at the LOG_LEVEL setting (`warn` with `quiet`) */
  logger?: Logger;
  /** Log warnings and errors only, the app included (sets LOG_LEVEL=warn). @default false */
  quiet?: boolean;
  /**
   * Loads the Application Insights SDK, started for the app's own functions when `APPLICATIONINSIGHTS_CONNECTION_STRING`
   * is set (tests pass a stand-in). @default `import('applicationinsights')`
   */
  loadApplicationInsights?: () => Promise<LocalApplicationInsightsModule>;
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
  /**
   * Drains and stops everything: no new requests, messages or timer runs; in-flight ones finish and settle;
   * the app's `appTerminate` hooks run and its clients close; Application Insights flushes; the emulators stop;
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
  // The emulator gets the database and container the app will look for (COSMOS_DATABASE / COSMOS_CONTAINER).
  const cosmosResources = resolveCosmosResourceNames(mergeSettings(fileValues, process.env));
  // Loaded on demand: against real Azure resources the (dev-only) emulator code is never imported.
  const stack: EmulatorStack | undefined =
    options.emulators === false
      ? undefined
      : await (await import('./emulatorStack.js')).startEmulatorStack({
          serviceBusPort: options.serviceBusPort,
          cosmosPort: options.cosmosPort,
          adminPort: options.serviceBusAdminPort,
          adminHttpsPort: options.serviceBusAdminHttpsPort,
          dataDir: options.dataDir,
          cosmosResources,
        });

  // --quiet also quiets the app's own logger, which reads LOG_LEVEL like the host's.
  const overrides: Record<string, string> = {
    ...(stack ? { ServiceBusConnection: stack.serviceBusConnectionString, CosmosConnection: stack.cosmosConnectionString } : {}),
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
  const logger = options.logger ?? createHostLogger({ level: settings.LOG_LEVEL || 'info' });

  const stoppers: (() => Promise<void>)[] = [];
  let restoreEnv: () => void = () => undefined;
  let telemetry: LocalTelemetry | undefined;
  const appFunctions = options.registrations === undefined;
  const stopAll = async (): Promise<void> => {
    await Promise.allSettled(stoppers.splice(0).map((stop) => stop()));
    // The app's own clients go before the emulators they talk to.
    if (appFunctions) await closeAppFunctions(logger).catch((error: unknown) => logger.warn({ err: error }, 'closing the app failed'));
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
    if (appFunctions) telemetry = await startLocalTelemetry(settings, logger, options.loadApplicationInsights);
    const functions = groupFunctions(appFunctions ? await loadAppFunctions(logger) : (options.registrations ?? []));

    // Triggers first, HTTP last: once the URL answers, messages are already being consumed.
    const serviceBus: ServiceBusHost = startServiceBusHost({ functions: functions.serviceBusQueue, settings, hostOptions, logger });
    stoppers.push(() => serviceBus.close());
    const cosmosDB: CosmosDBHost = await startCosmosDBHost({ functions: functions.cosmosDB, settings, logger });
    stoppers.push(() => cosmosDB.close());
    const timers: TimerHost = startTimerHost({ functions: functions.timer, logger });
    stoppers.push(() => timers.close());
    const http: HttpHost = await startHttpHost({
      functions: functions.http,
      logger,
      host: options.host,
      port: options.httpPort ?? 7071,
    });
    stoppers.push(() => http.close());

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
      close: () => (closing ??= stopAll()),
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
