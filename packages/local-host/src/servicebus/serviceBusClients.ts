import { ServiceBusClient, parseServiceBusConnectionString } from '@azure/service-bus';
import type { AppSettings } from '../config/appSettings.js';

/** A trigger's `connection` setting, resolved: what the trigger thread builds its client from. */
export type ServiceBusConnection =
  { connectionString: string } | { fullyQualifiedNamespace: string; managedIdentityClientId?: string };

/**
 * Resolves a trigger's `connection` setting the way the Functions host does: a connection string in `<connection>`,
 * or an identity-based connection in `<connection>__fullyQualifiedNamespace` (with `__clientId` for a user-assigned
 * identity).
 * @throws Error naming the missing setting.
 */
export function resolveServiceBusConnection(connection: string, settings: AppSettings): ServiceBusConnection {
  const connectionString = settings[connection];
  if (connectionString) {
    // A malformed one fails the start here, as the client's constructor would.
    parseServiceBusConnectionString(connectionString);
    return { connectionString };
  }
  const namespace = settings[`${connection}__fullyQualifiedNamespace`];
  if (namespace) {
    const managedIdentityClientId = settings[`${connection}__clientId`];
    return managedIdentityClientId
      ? { fullyQualifiedNamespace: namespace, managedIdentityClientId }
      : { fullyQualifiedNamespace: namespace };
  }
  throw new Error(
    `App setting "${connection}" is missing: set a Service Bus connection string, or ` +
      `"${connection}__fullyQualifiedNamespace" for an identity-based connection (local.settings.json Values or the environment).`,
  );
}

/**
 * The client of a resolved connection. The app's credential (and the Cosmos DB SDK its module imports) loads only for
 * an identity-based connection: on the emulators the trigger thread loads neither.
 */
export async function serviceBusClientFor(connection: ServiceBusConnection): Promise<ServiceBusClient> {
  if ('connectionString' in connection) return new ServiceBusClient(connection.connectionString);
  const { createCredential } = await import('ledger-convoy/adapters/azureClients');
  return new ServiceBusClient(
    connection.fullyQualifiedNamespace,
    createCredential({ kind: 'default', clientId: connection.managedIdentityClientId }),
  );
}
