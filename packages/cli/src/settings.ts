import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { resolveServiceBusConnection, type AppSettings } from 'ledger-convoy/adapters/azureSettings';
import { COSMOS_EMULATOR_KEY, SERVICE_BUS_EMULATOR_KEY } from './emulatorKeys.js';
import { CliError } from './errors.js';
import { errorMessage } from 'ledger-convoy/core';

/** Connection flags every command that talks to the system accepts. */
export interface ConnectionFlags {
  /** Service Bus connection string (`--servicebus`). */
  servicebus?: string;
  /** Base URL of the function app (`--http`). */
  http?: string;
  /** Function key sent as `x-functions-key` (`--function-key`). */
  functionKey?: string;
  /** Settings file whose `Values` fill in what flags and environment leave out (`--settings`). */
  settings?: string;
}

/** Where the CLI connects, resolved once at the entry point. */
export interface CliSettings {
  /** App settings for `createServiceBusClient`: flags over environment over the settings file. */
  readonly app: AppSettings;
  /** Function app base URL, without a trailing slash. */
  readonly httpBaseUrl: string;
  readonly functionKey: string | undefined;
  /** Connections configured nowhere, so taken from the embedded stack's ({@link EMBEDDED_STACK_SETTINGS}). */
  readonly embeddedDefaults: readonly EmbeddedConnection[];
  /** Where the embedded stack was assumed to be. @default {@link EMBEDDED_STACK_SETTINGS} */
  readonly embedded?: Readonly<Record<EmbeddedConnection, string>>;
}

/** A connection the CLI can default to the embedded stack. */
export type EmbeddedConnection = 'ServiceBusConnection' | 'CosmosConnection';

/** Default function app URL: the local host `npm start` and `func start` serve. */
const DEFAULT_HTTP_BASE_URL = 'http://127.0.0.1:7071';
/**
 * What the CLI talks to when nothing else is configured: the embedded emulators `npm start` runs on their default
 * ports (their well-known, non-secret keys), so the quick start needs no settings file.
 * @internal
 */
export const EMBEDDED_STACK_SETTINGS: Readonly<Record<string, string>> = Object.freeze({
  ServiceBusConnection: `Endpoint=sb://127.0.0.1:5672;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${SERVICE_BUS_EMULATOR_KEY};UseDevelopmentEmulator=true;`,
  CosmosConnection: `AccountEndpoint=http://127.0.0.1:8081/;AccountKey=${COSMOS_EMULATOR_KEY};`,
});

/** Default settings file, looked up in the working directory; absent is fine. */
const DEFAULT_SETTINGS_FILE = 'local.settings.json';

/** Adds `--servicebus`, `--http`, `--function-key` and `--settings` to a command. */
export function addConnectionOptions(command: Command): Command {
  return command
    .option(
      '--servicebus <connection>',
      'Service Bus connection string (else $ServiceBusConnection, else local.settings.json, else the embedded emulator on 127.0.0.1:5672)',
    )
    .option('--http <url>', `function app base URL (else $CONVOY_HTTP, else ${DEFAULT_HTTP_BASE_URL})`)
    .option('--function-key <key>', 'function key sent as x-functions-key (else $CONVOY_FUNCTION_KEY)')
    .option('--settings <file>', 'settings file whose Values are read for connections', DEFAULT_SETTINGS_FILE);
}

/**
 * Resolves the connection settings: flags win over the environment, which wins over the settings file's
 * `Values` (so a `local.settings.json` made from the sample works as is); a service configured nowhere — neither a
 * connection string nor identity settings — falls back to the embedded emulator of `npm start`.
 */
export function resolveCliSettings(
  flags: ConnectionFlags,
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
  embedded: Readonly<Record<EmbeddedConnection, string>> = EMBEDDED_STACK_SETTINGS as Record<
    EmbeddedConnection,
    string
  >,
): CliSettings {
  const fileValues = readSettingsFile(
    resolve(cwd, flags.settings ?? DEFAULT_SETTINGS_FILE),
    flags.settings !== undefined && flags.settings !== DEFAULT_SETTINGS_FILE,
  );
  const app: Record<string, string | undefined> = { ...fileValues, ...definedOnly(env) };
  if (flags.servicebus) app.ServiceBusConnection = flags.servicebus;
  const embeddedDefaults: EmbeddedConnection[] = [];
  for (const prefix of ['ServiceBusConnection', 'CosmosConnection'] as const) {
    const configured = Object.keys(app).some((key) => (key === prefix || key.startsWith(`${prefix}__`)) && app[key]);
    if (!configured) {
      app[prefix] = embedded[prefix];
      embeddedDefaults.push(prefix);
    }
  }
  const httpBaseUrl = (flags.http ?? app.CONVOY_HTTP ?? DEFAULT_HTTP_BASE_URL).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/i.test(httpBaseUrl)) {
    throw new CliError(
      'Settings',
      `--http must be an http(s) URL, not "${httpBaseUrl}".`,
      'For the local host: --http http://127.0.0.1:7071',
    );
  }
  return Object.freeze({
    app: Object.freeze(app),
    httpBaseUrl,
    functionKey: flags.functionKey ?? app.CONVOY_FUNCTION_KEY,
    embeddedDefaults: Object.freeze(embeddedDefaults),
    embedded,
  });
}

/** Whether `app` still uses the embedded stack's default for `connection` (nothing configured, no flag merged in). */
export function usesEmbeddedDefault(settings: CliSettings, app: AppSettings, connection: EmbeddedConnection): boolean {
  return (
    settings.embeddedDefaults.includes(connection) &&
    app[connection] === (settings.embedded ?? EMBEDDED_STACK_SETTINGS)[connection]
  );
}

/**
 * Checks the Service Bus settings before any client exists, and turns a missing or malformed one into an error
 * that says where to put it.
 */
export function requireServiceBus(settings: CliSettings): void {
  try {
    resolveServiceBusConnection(settings.app);
  } catch (error) {
    throw new CliError(
      'Settings',
      errorMessage(error),
      'Pass --servicebus "<connection string>", set ServiceBusConnection, or copy local.settings.sample.json to local.settings.json (npm start uses its emulator connection).',
      { cause: error },
    );
  }
}

function readSettingsFile(path: string, mustExist: boolean): Record<string, string> {
  if (!existsSync(path)) {
    if (mustExist)
      throw new CliError(
        'Settings',
        `The settings file ${path} does not exist.`,
        'Pass an existing file to --settings, or leave it out.',
      );
    return {};
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CliError('Settings', `${path} is not valid JSON.`, 'Fix it, or start from local.settings.sample.json.', {
      cause: error,
    });
  }
  const values = (parsed as { Values?: unknown } | null)?.Values;
  if (typeof values !== 'object' || values === null) return {};
  return Object.fromEntries(Object.entries(values).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== ''),
  );
}
