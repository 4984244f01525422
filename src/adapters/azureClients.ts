/**
 * Builds the app's own Azure SDK clients from the connections `azureSettings.ts` resolves: connection strings for
 * the emulators, managed identity everywhere else.
 */
import { CosmosClient } from '@azure/cosmos';
import type { CosmosClientOptions } from '@azure/cosmos';
import type { AccessToken, GetTokenOptions, TokenCredential } from '@azure/identity';
import { ServiceBusClient } from '@azure/service-bus';
import type { ServiceBusClientOptions } from '@azure/service-bus';
import type { AzureMonitorOpenTelemetryOptions } from 'applicationinsights';
import { resolveCosmosConnection, resolveServiceBusConnection, resolveTelemetry } from './azureSettings.js';
import type { AppSettings, CredentialChoice } from './azureSettings.js';

/**
 * The credential a {@link CredentialChoice} describes. `@azure/identity` loads with the first token asked for, not
 * with this module: the emulators (and so `npm start`) use keys and never need it. Construction does not contact Azure.
 */
export function createCredential(choice: CredentialChoice): TokenCredential {
  let credential: Promise<TokenCredential> | undefined;
  return {
    async getToken(scopes: string | string[], options?: GetTokenOptions): Promise<AccessToken | null> {
      credential ??= identityCredential(choice);
      return (await credential).getToken(scopes, options);
    },
  };
}

/** The `@azure/identity` credential of `choice`, loading the package. */
export async function identityCredential(choice: CredentialChoice): Promise<TokenCredential> {
  const { DefaultAzureCredential, ManagedIdentityCredential } = await import('@azure/identity');
  if (choice.kind === 'managedIdentity') {
    return choice.clientId
      ? new ManagedIdentityCredential({ clientId: choice.clientId })
      : new ManagedIdentityCredential();
  }
  return new DefaultAzureCredential(
    choice.managedIdentityClientId ? { managedIdentityClientId: choice.managedIdentityClientId } : {},
  );
}

/** A `ServiceBusClient` from the settings; `options` pass through (retry policy, identifier, …). */
export function createServiceBusClient(settings: AppSettings, options?: ServiceBusClientOptions): ServiceBusClient {
  const choice = resolveServiceBusConnection(settings);
  return choice.kind === 'connectionString'
    ? new ServiceBusClient(choice.connectionString, options)
    : new ServiceBusClient(choice.fullyQualifiedNamespace, createCredential(choice.credential), options);
}

/** A `CosmosClient` from the settings; `options` add to (and may not override) the endpoint and credentials. */
export function createCosmosClient(
  settings: AppSettings,
  options: Omit<CosmosClientOptions, 'endpoint' | 'key' | 'aadCredentials'> = {},
): CosmosClient {
  const choice = resolveCosmosConnection(settings);
  return choice.kind === 'key'
    ? new CosmosClient({ ...options, endpoint: choice.endpoint, key: choice.key })
    : new CosmosClient({ ...options, endpoint: choice.endpoint, aadCredentials: createCredential(choice.credential) });
}

/** The part of `applicationinsights` used here; injectable so tests never load the SDK or reach the network. */
export interface ApplicationInsightsModule {
  useAzureMonitor(options?: AzureMonitorOpenTelemetryOptions): void;
}

/**
 * Starts Application Insights when `APPLICATIONINSIGHTS_CONNECTION_STRING` is set, and only then: without it
 * `useAzureMonitor` throws, and pointed nowhere it stalls shutdown. The SDK is imported lazily for the same
 * reason. Telemetry itself goes through `@opentelemetry/api`, a no-op when this was not called.
 * @returns whether Application Insights was started.
 */
export async function enableApplicationInsights(
  settings: AppSettings,
  load: () => Promise<ApplicationInsightsModule> = () => import('applicationinsights'),
): Promise<boolean> {
  const choice = resolveTelemetry(settings);
  if (choice === undefined) return false;
  const { useAzureMonitor } = await load();
  const credential = choice.credential && (await identityCredential(choice.credential));
  useAzureMonitor({
    azureMonitorExporterOptions: {
      connectionString: choice.connectionString,
      ...(credential ? { credential } : {}),
    },
  });
  return true;
}
