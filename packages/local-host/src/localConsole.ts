import { startConsole, type RunningConsole } from '@ledger-convoy/cli/console';
import { consoleTarget } from '@ledger-convoy/cli/console';
import type { CliSettings } from '@ledger-convoy/cli';
import type { LocalHost } from './localHost.js';
import { startTelemetryTap } from './telemetryTap.js';

/** Options of {@link startLocalConsole}. */
export interface LocalConsoleOptions {
  /** @default 7072; 0 picks a free port */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** How often the charts sample. @default 5000 */
  sampleIntervalMs?: number;
  /** Orders per page of the Orders lists (tests page through a few). @default 50 */
  pageSize?: number;
  /** Most dead letters a view peeks. @default 200 */
  deadLetterPeekLimit?: number;
}

/**
 * The operator console of `npm start`: the console `convoy console` serves, pointed at this host's emulators and
 * functions, plus what only the app's process knows — its alerts and its count of entries applied, read from the
 * OpenTelemetry API the app emits through (unless Application Insights already takes them).
 */
export async function startLocalConsole(host: LocalHost, options: LocalConsoleOptions = {}): Promise<RunningConsole> {
  const tap = host.applicationInsights ? undefined : startTelemetryTap();
  const app = {
    ...host.settings,
    ...(host.serviceBusAdminPort !== undefined
      ? { CONVOY_ADMIN: `http://127.0.0.1:${host.serviceBusAdminPort}/stats` }
      : {}),
  };
  const settings: CliSettings = Object.freeze({
    app: Object.freeze(app),
    httpBaseUrl: host.httpUrl.replace(/\/api$/, ''),
    functionKey: undefined,
    embeddedDefaults: [],
  });
  try {
    const running = await startConsole({
      target: consoleTarget(settings, { telemetry: tap }),
      port: options.port,
      host: options.host,
      sampleIntervalMs: options.sampleIntervalMs,
      pageSize: options.pageSize,
      deadLetterPeekLimit: options.deadLetterPeekLimit,
    });
    return {
      ...running,
      url: running.url,
      async close() {
        await running.close();
        await tap?.close();
      },
    };
  } catch (error) {
    await tap?.close();
    throw error;
  }
}
