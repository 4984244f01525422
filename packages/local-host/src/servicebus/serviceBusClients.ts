import { createCredential } from 'ledger-convoy/adapters/azureClients';
import { ServiceBusClient } from '@azure/service-bus';
import type { AppSettings } from '../config/appSettings.js';

/**
 * Builds the client for a trigger's `connection` setting the way the Functions host resolves it: a connection
 * string in `<connection>`, or an identity-based connection in `<connection>__fullyQualifiedNamespace` (with
 * `__clientId` for a user-assigned identity).
 * @throws Error naming the missing setting.
 */
export function serviceBusClientFor(connection: string, settings: AppSettings): ServiceBusClient {
  const connectionString = settings[connection];
  if (connectionString) return new ServiceBusClient(connectionString);
  const namespace = settings[`${connection}__fullyQualifiedNamespace`];
  if (namespace) {
    const clientId = settings[`${connection}__clientId`] || undefined;
    return new ServiceBusClient(namespace, createCredential({ kind: 'default', clientId }));
  }
  throw new Error(
    `App setting "${connection}" is missing: set a Service Bus connection string, or ` +
      `"${connection}__fullyQualifiedNamespace" for an identity-based connection (local.settings.json Values or the environment).`,
  );
}
