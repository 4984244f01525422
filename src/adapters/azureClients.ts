/**
 * Builds the app's own Azure SDK clients from the connections `azureSettings.ts` resolves: connection strings for
 * the emulators, managed identity everywhere else.
 */
import { CosmosClient } from '@azure/cosmos';
import type { AccessToken, GetTokenOptions, TokenCredential } from '@azure/identity';
import { ServiceBusClient } from '@azure/service-bus';
import type { ServiceBusClientOptions } from '@azure/service-bus';
import type { AzureMonitorOpenTelemetryOptions } from 'applicationinsights';
import { resolveCosmosConnection, resolveServiceBusConnection, resolveTelemetry } from './azureSettings.js';
import type { AppSettings, CredentialChoice } from './azureSettings.js';
import { isLoopbackEndpoint } from './loopback.js';

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
  const { clientId } = choice;
  if (choice.kind === 'default')
    return new DefaultAzureCredential(clientId ? { managedIdentityClientId: clientId } : {});
  return clientId ? new ManagedIdentityCredential({ clientId }) : new ManagedIdentityCredential();
}

/** A `ServiceBusClient` from the settings; `options` pass through (retry policy, identifier, …). */
export function createServiceBusClient(settings: AppSettings, options?: ServiceBusClientOptions): ServiceBusClient {
  const choice = resolveServiceBusConnection(settings);
  return choice.kind === 'connectionString'
    ? new ServiceBusClient(choice.connectionString, options)
    : new ServiceBusClient(choice.fullyQualifiedNamespace, createCredential(choice.credential), options);
}

/**
 * A `CosmosClient` from the settings, set up so the core sees every status it must decide on: the SDK's own
 * throttling retries are off (a 429 reaches the core, which waits it out as its retry-after says, rule 8), and
 * requests time out well inside the message lock (then a write's outcome is unknown). The account's regional
 * endpoints are followed except on this machine: the emulators' account metadata names their default port rather
 * than the one they were started on.
 */
export function createCosmosClient(settings: AppSettings): CosmosClient {
  const choice = resolveCosmosConnection(settings);
  return new CosmosClient({
    endpoint: choice.endpoint,
    ...(choice.kind === 'key' ? { key: choice.key } : { aadCredentials: createCredential(choice.credential) }),
    connectionPolicy: {
      enableEndpointDiscovery: !isLoopbackEndpoint(choice.endpoint),
      requestTimeout: 10_000,
      retryOptions: { maxRetryAttemptCount: 0, fixedRetryIntervalInMilliseconds: 0, maxWaitTimeInSeconds: 0 },
    },
  });
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
