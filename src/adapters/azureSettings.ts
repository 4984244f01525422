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

/** Which identity a client authenticates with. */
export type CredentialChoice =
  /** `<prefix>__credential=managedidentity`: the managed identity, user-assigned when a client id is known. */
  | { kind: 'managedIdentity'; clientId: string | undefined }
  /** Otherwise `DefaultAzureCredential` (developer sign-in locally), told which user-assigned identity to prefer. */
  | { kind: 'default'; managedIdentityClientId: string | undefined };

/** How to reach Service Bus. */
export type ServiceBusConnectionChoice =
  | { kind: 'connectionString'; connectionString: string; emulator: boolean }
  | { kind: 'identity'; fullyQualifiedNamespace: string; credential: CredentialChoice };

/** How to reach Cosmos DB. */
export type CosmosConnectionChoice =
  { kind: 'key'; endpoint: string; key: string } | { kind: 'identity'; endpoint: string; credential: CredentialChoice };

function setting(settings: AppSettings, name: string): string | undefined {
  const value = settings[name]?.trim();
  return value ? value : undefined;
}

/** Reads `<prefix>__credential` / `<prefix>__clientId`, falling back to `AZURE_CLIENT_ID` for the client id. @internal */
export function resolveCredential(settings: AppSettings, prefix: string): CredentialChoice {
  const clientId = setting(settings, `${prefix}__clientId`) ?? setting(settings, 'AZURE_CLIENT_ID');
  const credential = setting(settings, `${prefix}__credential`);
  if (credential === undefined) return { kind: 'default', managedIdentityClientId: clientId };
  if (credential.toLowerCase() === 'managedidentity') return { kind: 'managedIdentity', clientId };
  throw new SettingsError(
    'InvalidSetting',
    `${prefix}__credential`,
    `${prefix}__credential must be "managedidentity" (or unset for DefaultAzureCredential).`,
  );
}

/** Host name only: the SDK wants `ns.servicebus.windows.net`, people paste `sb://ns.servicebus.windows.net/`. */
function hostOf(value: string): string {
  return value.replace(/^[a-z]+:\/\//i, '').replace(/\/+$/, '');
}

/**
 * `<name>` (a connection string; `UseDevelopmentEmulator=true` works as is with the SDK) wins over
 * `<name>__fullyQualifiedNamespace` (managed identity).
 */
export function resolveServiceBusConnection(
  settings: AppSettings,
  name = 'ServiceBusConnection',
): ServiceBusConnectionChoice {
  const connectionString = setting(settings, name);
  if (connectionString !== undefined) {
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
    return {
      kind: 'connectionString',
      connectionString,
      emulator: /(^|;)\s*UseDevelopmentEmulator\s*=\s*true/i.test(connectionString),
    };
  }
  const namespace = setting(settings, `${name}__fullyQualifiedNamespace`);
  if (namespace === undefined) {
    throw new SettingsError(
      'MissingSetting',
      name,
      `Service Bus is not configured: set ${name} (a connection string, emulator only) or ` +
        `${name}__fullyQualifiedNamespace (managed identity).`,
    );
  }
  return {
    kind: 'identity',
    fullyQualifiedNamespace: hostOf(namespace),
    credential: resolveCredential(settings, name),
  };
}

/** `AccountEndpoint=…;AccountKey=…;` — split on the first `=` only, as keys are base64 and end in `=`. */
function parseCosmosConnectionString(value: string, name: string): { endpoint: string; key: string } {
  const parts = new Map<string, string>();
  for (const pair of value.split(';')) {
    const at = pair.indexOf('=');
    if (at > 0) parts.set(pair.slice(0, at).trim().toLowerCase(), pair.slice(at + 1).trim());
  }
  const endpoint = parts.get('accountendpoint');
  const key = parts.get('accountkey');
  if (!endpoint || !key) {
    throw new SettingsError(
      'InvalidSetting',
      name,
      `${name} must be a Cosmos DB connection string with AccountEndpoint and AccountKey.`,
    );
  }
  return { endpoint, key };
}

/** `<name>` (a connection string, emulator only) wins over `<name>__accountEndpoint` (managed identity). */
export function resolveCosmosConnection(settings: AppSettings, name = 'CosmosConnection'): CosmosConnectionChoice {
  const connectionString = setting(settings, name);
  if (connectionString !== undefined) return { kind: 'key', ...parseCosmosConnectionString(connectionString, name) };
  const endpoint = setting(settings, `${name}__accountEndpoint`);
  if (endpoint === undefined) {
    throw new SettingsError(
      'MissingSetting',
      name,
      `Cosmos DB is not configured: set ${name} (a connection string, emulator only) or ` +
        `${name}__accountEndpoint (managed identity).`,
    );
  }
  return { kind: 'identity', endpoint, credential: resolveCredential(settings, name) };
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
  const parts = new Map(
    authentication.split(';').map((pair) => {
      const at = pair.indexOf('=');
      return [pair.slice(0, Math.max(at, 0)).trim().toLowerCase(), pair.slice(at + 1).trim()] as const;
    }),
  );
  if (parts.get('authorization')?.toUpperCase() !== 'AAD') {
    throw new SettingsError(
      'InvalidSetting',
      'APPLICATIONINSIGHTS_AUTHENTICATION_STRING',
      'APPLICATIONINSIGHTS_AUTHENTICATION_STRING must read "Authorization=AAD" (optionally ";ClientId=<id>").',
    );
  }
  return { connectionString, credential: { kind: 'managedIdentity', clientId: parts.get('clientid') || undefined } };
}
