import type { Container } from '@azure/cosmos';
import { resolveCosmosConnection, type AppSettings } from 'ledger-convoy/adapters/azureSettings';
import { resolveCosmosResourceNames } from 'ledger-convoy/adapters/cosmosClientOptions';
import { CliError } from './errors.js';
import { errorMessage } from 'ledger-convoy/core';

/** The app settings with `--cosmos <connection>` (when given) as `CosmosConnection`. */
export function withCosmosFlag(app: AppSettings, cosmos: string | undefined): AppSettings {
  return cosmos === undefined ? app : { ...app, CosmosConnection: cosmos };
}

/** Whether the settings name a Cosmos DB account (`CosmosConnection` or `CosmosConnection__accountEndpoint`). */
export function hasCosmosConnection(app: AppSettings): boolean {
  return Boolean(app.CosmosConnection?.trim() || app.CosmosConnection__accountEndpoint?.trim());
}

/**
 * Runs `work` on the app's orders container — the account of `CosmosConnection` (a connection string, or
 * `__accountEndpoint` with an identity), the database and container of `COSMOS_DATABASE` / `COSMOS_CONTAINER`
 * (default `convoy` / `orders`), as the function app resolves them — and disposes of the client afterwards.
 * @throws CliError `Settings` when the connection or the names are unusable.
 */
export async function withOrdersContainer<T>(app: AppSettings, work: (container: Container) => Promise<T>): Promise<T> {
  let names: ReturnType<typeof resolveCosmosResourceNames>;
  try {
    resolveCosmosConnection(app);
    names = resolveCosmosResourceNames(app);
  } catch (error) {
    throw new CliError(
      'Settings',
      errorMessage(error),
      'Pass --cosmos "<connection string>" or set CosmosConnection.',
      { cause: error },
    );
  }
  // Loaded here, not at the top: `@azure/cosmos` and `@azure/identity` are a second of start-up for every command.
  const { createCosmosClient } = await import('ledger-convoy/adapters/azureClients');
  const client = createCosmosClient(app);
  try {
    return await work(client.database(names.database).container(names.container));
  } finally {
    client.dispose();
  }
}
