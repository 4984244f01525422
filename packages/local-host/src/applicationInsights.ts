import type { Logger } from 'pino';
import { enableApplicationInsights } from 'ledger-convoy/adapters/azureClients';
import type { ApplicationInsightsModule } from 'ledger-convoy/adapters/azureClients';
import { resolveTelemetry } from 'ledger-convoy/adapters/azureSettings';
import type { AppSettings } from 'ledger-convoy/adapters/azureSettings';

/** The part of `applicationinsights` the local host uses; injectable so tests never load the SDK. */
export interface LocalApplicationInsightsModule extends ApplicationInsightsModule {
  /** Flushes what is buffered and stops exporting. */
  shutdownAzureMonitor(): Promise<void>;
}

/** Application Insights as the local host runs it. */
export interface LocalTelemetry {
  /** Whether telemetry is being exported. */
  readonly enabled: boolean;
  /** Flushes and stops the export (nothing when it was not started). Never rejects. */
  close(): Promise<void>;
}

/**
 * Starts Application Insights for the in-process host exactly as `src/index.ts` does on Azure
 * (`enableApplicationInsights`), so a local run against Azure resources exports its telemetry. Without
 * `APPLICATIONINSIGHTS_CONNECTION_STRING` nothing is loaded or started. A bad setting or a failing SDK is logged
 * and the host runs on without telemetry, as the app does.
 */
export async function startLocalTelemetry(
  settings: AppSettings,
  logger: Logger,
  load: () => Promise<LocalApplicationInsightsModule> = () => import('applicationinsights'),
): Promise<LocalTelemetry> {
  const off: LocalTelemetry = { enabled: false, close: () => Promise.resolve() };
  let enabled: boolean;
  try {
    if (resolveTelemetry(settings) === undefined) return off;
    enabled = await enableApplicationInsights(settings, load);
  } catch (error) {
    logger.warn({ err: error }, 'Application Insights not started');
    return off;
  }
  if (!enabled) return off;
  logger.info('Application Insights started (APPLICATIONINSIGHTS_CONNECTION_STRING)');
  return {
    enabled: true,
    async close() {
      // Flush before the process exits: the host's close is usually the last thing `npm start` does.
      await load()
        .then((sdk) => sdk.shutdownAzureMonitor())
        .catch((error: unknown) => logger.warn({ err: error }, 'Application Insights did not shut down cleanly'));
    },
  };
}
