import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { CosmosResourceNames } from '../src/adapters/cosmosClientOptions.js';
import { start as startCosmos } from '../emulators/cosmos/index.js';
import { start as startServiceBus } from '../emulators/servicebus/index.js';
import { ensureCosmosResources } from './cosmosResources.js';
import { repoPath } from './paths.js';

/** Options of {@link startEmulatorStack}. */
export interface EmulatorStackOptions {
  /** AMQP port of the Service Bus emulator; 0 picks a free one. @default 5672 */
  serviceBusPort?: number;
  /** HTTP port of the Cosmos emulator; 0 picks a free one. @default 8081 */
  cosmosPort?: number;
  /** Port of the Service Bus emulator's admin view (health, sessions, ATOM API); 0 disables it. @default 5300 */
  adminPort?: number;
  /** Keeps both emulators' data in subdirectories of this directory; in memory when unset. @default undefined */
  dataDir?: string;
  /** The Service Bus entity file. @default `infra/servicebus.config.json` */
  entityFile?: string;
  /** The database and container to create (the app's `COSMOS_DATABASE` / `COSMOS_CONTAINER`). @default convoy / orders */
  cosmosResources?: CosmosResourceNames;
}

/** The running emulators and the connection strings the app's settings take. */
export interface EmulatorStack {
  readonly serviceBusConnectionString: string;
  readonly cosmosConnectionString: string;
  readonly cosmosEndpoint: string;
  /** The Service Bus emulator's admin port actually bound; undefined when disabled. */
  readonly serviceBusAdminPort: number | undefined;
  close(): Promise<void>;
}

/**
 * Starts the embedded Service Bus emulator with the repository's entity file and the Cosmos emulator with the
 * app's database and container. Azurite is not started: the in-process host has no storage triggers, keeps timer
 * schedules in memory and takes no locks, so nothing needs `AzureWebJobsStorage` (only `func start` does).
 */
export async function startEmulatorStack(options: EmulatorStackOptions = {}): Promise<EmulatorStack> {
  const dataDir = options.dataDir;
  if (dataDir) {
    await mkdir(join(dataDir, 'servicebus'), { recursive: true });
    await mkdir(join(dataDir, 'cosmos'), { recursive: true });
  }
  const serviceBus = await startServiceBus({
    port: options.serviceBusPort ?? 5672,
    config: options.entityFile ?? repoPath('infra/servicebus.config.json'),
    dataDir: dataDir ? join(dataDir, 'servicebus') : undefined,
    adminPort: options.adminPort ?? 5300,
  });
  let cosmos;
  try {
    cosmos = await startCosmos({ port: options.cosmosPort ?? 8081, dataDir: dataDir ? join(dataDir, 'cosmos') : undefined });
    await ensureCosmosResources(cosmos.connectionString, options.cosmosResources);
  } catch (error) {
    await cosmos?.close();
    await serviceBus.close();
    throw error;
  }
  const started = cosmos;
  return {
    serviceBusConnectionString: serviceBus.connectionString,
    cosmosConnectionString: started.connectionString,
    cosmosEndpoint: started.endpoint,
    serviceBusAdminPort: serviceBus.adminPort,
    async close() {
      await Promise.allSettled([started.close(), serviceBus.close()]);
    },
  };
}
