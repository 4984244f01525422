/**
 * Resolves the app's connections from the shared app settings (docs/architecture.md, "Names everyone shares"): connection
 * strings for the emulators, managed identity everywhere else. Pure — settings are passed in, nothing reads
 * `process.env`, and no client SDK beyond the Service Bus connection-string parser is loaded, so the CLI can
 * decide what it needs before paying for `@azure/cosmos` or `@azure/identity`.
 */
import { parseServiceBusConnectionString } from '@azure/service-bus';
import { errorMessage } from '../core/index.js';

/** App settings as the host exposes them (`process.env` in production, a literal in tests). */
export type AppSettings = Readonly<Record<string, string | undefined>>;

/** A setting is absent or unusable. `setting` names the one to fix; values are never echoed (they hold keys). */
export class SettingsError extends Error {
  override readonly name = 'SettingsError';

  constructor(
    readonly code: 'MissingSetting' | 'InvalidSetting',
    readonly setting: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Which identity a client authenticates with: `managedIdentity` (`<prefix>__credential=managedidentity`) the managed
 * identity, user-assigned when a client id is known; otherwise `default`, `DefaultAzureCredential` (developer sign-in
 * locally), told which user-assigned identity to prefer.
 */
export interface CredentialChoice {
  kind: 'managedIdentity' | 'default';
  clientId: string | undefined;
}

/** How to reach Service Bus. */
export type ServiceBusConnectionChoice =
  | { kind: 'connectionString'; connectionString: string; emulator: boolean }
  | { kind: 'identity'; fullyQualifiedNamespace: string; credential: CredentialChoice };

/** How to reach Cosmos DB. */
export type CosmosConnectionChoice =
  { kind: 'key'; endpoint: string; key: string } | { kind: 'identity'; endpoint: string; credential: CredentialChoice };

/** The trimmed value of the setting `name`; `undefined` when it is unset or blank. */
export function setting(settings: AppSettings, name: string): string | undefined {
  const value = settings[name]?.trim();
  return value ? value : undefined;
}

/** Reads `<prefix>__credential` / `<prefix>__clientId`, falling back to `AZURE_CLIENT_ID` for the client id. @internal */
export function resolveCredential(settings: AppSettings, prefix: string): CredentialChoice {
  const clientId = setting(settings, `${prefix}__clientId`) ?? setting(settings, 'AZURE_CLIENT_ID');
  const credential = setting(settings, `${prefix}__credential`);
  if (credential === undefined) return { kind: 'default', clientId };
  if (credential.toLowerCase() === 'managedidentity') return { kind: 'managedIdentity', clientId };
  throw new SettingsError(
    'InvalidSetting',
    `${prefix}__credential`,
    `${prefix}__credential must be "managedidentity" (or unset for DefaultAzureCredential).`,
  );
}

/** `Key=value;…` with lower-cased keys, each pair split on its first `=` only: keys are base64 and end in `=`. */
function pairsOf(value: string): Map<string, string> {
  return new Map(
    value.split(';').map((pair) => {
      const at = pair.indexOf('=');
      return [pair.slice(0, Math.max(at, 0)).trim().toLowerCase(), pair.slice(at + 1).trim()] as const;
    }),
  );
}

/** `<name>__<identitySetting>` and the identity to use with it, when `<name>` holds no connection string. */
function identitySetting(settings: AppSettings, name: string, identitySetting: string, service: string) {
  const value = setting(settings, `${name}__${identitySetting}`);
  if (value === undefined) {
    throw new SettingsError(
      'MissingSetting',
      name,
      `${service} is not configured: set ${name} (a connection string, emulator only) or ` +
        `${name}__${identitySetting} (managed identity).`,
    );
  }
  return { value, credential: resolveCredential(settings, name) };
}

/**
 * `ServiceBusConnection` (a connection string; `UseDevelopmentEmulator=true` works as is with the SDK) wins over
 * `ServiceBusConnection__fullyQualifiedNamespace` (managed identity).
 */
export function resolveServiceBusConnection(settings: AppSettings): ServiceBusConnectionChoice {
  const name = 'ServiceBusConnection';
  const connectionString = setting(settings, name);
  if (connectionString === undefined) {
    const { value, credential } = identitySetting(settings, name, 'fullyQualifiedNamespace', 'Service Bus');
    // Host name only: the SDK wants `ns.servicebus.windows.net`, people paste `sb://ns.servicebus.windows.net/`.
    const fullyQualifiedNamespace = value.replace(/^[a-z]+:\/\//i, '').replace(/\/+$/, '');
    return { kind: 'identity', fullyQualifiedNamespace, credential };
  }
  const invalid = (why: string) =>
    new SettingsError('InvalidSetting', name, `${name} is not a usable Service Bus connection string: ${why}`);
  let parsed: ReturnType<typeof parseServiceBusConnectionString>;
  try {
    parsed = parseServiceBusConnectionString(connectionString);
  } catch (error) {
    // The SDK's parse errors describe the structure, never the key, so they are safe to pass on.
    throw invalid(errorMessage(error));
  }
  if (!parsed.fullyQualifiedNamespace || !(parsed.sharedAccessKey || parsed.sharedAccessSignature)) {
    throw invalid('it needs Endpoint and SharedAccessKey (or SharedAccessSignature).');
  }
  const emulator = /(^|;)\s*UseDevelopmentEmulator\s*=\s*true/i.test(connectionString);
  return { kind: 'connectionString', connectionString, emulator };
}

/**
 * `CosmosConnection` (a connection string, `AccountEndpoint=…;AccountKey=…;`, emulator only) wins over
 * `CosmosConnection__accountEndpoint` (managed identity).
 */
export function resolveCosmosConnection(settings: AppSettings): CosmosConnectionChoice {
  const name = 'CosmosConnection';
  const connectionString = setting(settings, name);
  if (connectionString === undefined) {
    const { value, credential } = identitySetting(settings, name, 'accountEndpoint', 'Cosmos DB');
    return { kind: 'identity', endpoint: value, credential };
  }
  const pairs = pairsOf(connectionString);
  const endpoint = pairs.get('accountendpoint');
  const key = pairs.get('accountkey');
  if (!endpoint || !key) {
    throw new SettingsError(
      'InvalidSetting',
      name,
      `${name} must be a Cosmos DB connection string with AccountEndpoint and AccountKey.`,
    );
  }
  return { kind: 'key', endpoint, key };
}

/** Whether and how to export telemetry to Application Insights. */
export interface TelemetryChoice {
  connectionString: string;
  /** Set when `APPLICATIONINSIGHTS_AUTHENTICATION_STRING` asks for Entra ID (`Authorization=AAD`). */
  credential: CredentialChoice | undefined;
}

/** `undefined` unless `APPLICATIONINSIGHTS_CONNECTION_STRING` is set. */
export function resolveTelemetry(settings: AppSettings): TelemetryChoice | undefined {
  const connectionString = setting(settings, 'APPLICATIONINSIGHTS_CONNECTION_STRING');
  if (connectionString === undefined) return undefined;
  const authentication = setting(settings, 'APPLICATIONINSIGHTS_AUTHENTICATION_STRING');
  if (authentication === undefined) return { connectionString, credential: undefined };
  const pairs = pairsOf(authentication);
  if (pairs.get('authorization')?.toUpperCase() !== 'AAD') {
    throw new SettingsError(
      'InvalidSetting',
      'APPLICATIONINSIGHTS_AUTHENTICATION_STRING',
      'APPLICATIONINSIGHTS_AUTHENTICATION_STRING must read "Authorization=AAD" (optionally ";ClientId=<id>").',
    );
  }
  return { connectionString, credential: { kind: 'managedIdentity', clientId: pairs.get('clientid') || undefined } };
}
