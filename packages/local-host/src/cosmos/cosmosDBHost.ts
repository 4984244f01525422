/**
 * The in-process host's Cosmos DB triggers: for each `app.cosmosDB` registration, the monitored container and the
 * lease container named by its options (`%SETTING%` expressions resolved from the app settings, as the host does),
 * and one {@link ChangeFeedProcessor} under this host's name.
 */
import { randomUUID } from 'node:crypto';
import { CosmosClient, type Container } from '@azure/cosmos';
import type { CosmosDBv4FunctionOptions } from '@azure/functions';
import type { Logger } from 'pino';
import type { ThroughputSummary } from '../logging/throughputSummary.js';
import { leaseIdPrefix } from 'ledger-convoy/adapters/changeFeedLease';
import { toStoreError } from 'ledger-convoy/adapters/cosmosOrderStore';
import { CoreErrorCode } from 'ledger-convoy/core';
import type { AppSettings } from '../config/appSettings.js';
import { createInvocationContext } from '../logging/invocationContext.js';
import { inInvocation } from '../logging/logOutput.js';
import type { RegistrationOf } from '../registrations.js';
import { ChangeFeedProcessor, type ChangeFeedProcessorTiming } from './changeFeedProcessor.js';
import { LeaseStore } from './leaseStore.js';
import { resolveSettingExpression } from './settingExpression.js';

/** Options of {@link startCosmosDBHost}. */
interface CosmosDBHostOptions {
  functions: readonly RegistrationOf<'cosmosDB'>[];
  settings: AppSettings;
  logger: Logger;
  /** Counts each invocation's outcome for the periodic summary line. @default none */
  summary?: ThroughputSummary;
  /** This host's name in the leases (a competing host needs another). @default a new UUID */
  hostName?: string;
}

/** The running Cosmos DB triggers. */
export interface CosmosDBHost {
  readonly hostName: string;
  /** Lease tokens each function's processor holds now. */
  ownedLeases(functionName: string): string[];
  /** Drains: running invocations finish and are checkpointed, leases are released. */
  close(): Promise<void>;
  /** Stops as a crash would: no checkpoint, no release (for tests). @internal */
  crash(): void;
}

/** The trigger's own defaults, as the extension applies them when an option is absent or 0. */
const COSMOS_TRIGGER_DEFAULTS: ChangeFeedProcessorTiming = {
  feedPollDelayMs: 5000,
  leaseAcquireIntervalMs: 13_000,
  leaseExpirationIntervalMs: 60_000,
  leaseRenewIntervalMs: 17_000,
  maxItemsPerInvocation: 100,
  startFromBeginning: false,
};

/** Starts every Cosmos DB trigger; rejects (starting nothing more) when one cannot start. */
export async function startCosmosDBHost(options: CosmosDBHostOptions): Promise<CosmosDBHost> {
  const hostName = options.hostName ?? randomUUID();
  const clients = new Map<string, CosmosClient>();
  const processors = new Map<string, ChangeFeedProcessor>();
  const closeAll = async (): Promise<void> => {
    await Promise.allSettled([...processors.values()].map((p) => p.close()));
    for (const client of clients.values()) client.dispose();
  };
  try {
    for (const registration of options.functions) {
      const processor = await startWithRetries(registration.name, options.logger, () =>
        startTrigger(registration, { ...options, hostName }, clients),
      );
      processors.set(registration.name, processor);
    }
  } catch (error) {
    await closeAll();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    hostName,
    ownedLeases: (name) => processors.get(name)?.ownedLeases() ?? [],
    close: () => (closing ??= closeAll()),
    crash() {
      for (const processor of processors.values()) processor.abort();
      for (const client of clients.values()) client.dispose();
    },
  };
}

/** Start attempts of a trigger whose Cosmos DB calls keep failing transiently, before the host start fails. */
const START_ATTEMPTS = 8;

/**
 * Starts a trigger, trying again after a transient Cosmos DB failure (a 429, a 503, a network error), as the
 * Functions host retries a listener that could not start; a setting, a missing container (404) or any other
 * refusal fails at once.
 */
async function startWithRetries(
  name: string,
  logger: Logger,
  start: () => Promise<ChangeFeedProcessor>,
): Promise<ChangeFeedProcessor> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      const transient =
        toStoreError(error, 'read', `the ${name} trigger's start`).code === CoreErrorCode.StoreTransient;
      if (!transient || attempt >= START_ATTEMPTS) throw error;
      const delayMs = Math.min(5_000, 100 * 2 ** attempt);
      logger.warn(
        { function: name, attempt, delayMs, err: error },
        'the Cosmos DB trigger could not start; trying again',
      );
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}

async function startTrigger(
  registration: RegistrationOf<'cosmosDB'>,
  options: CosmosDBHostOptions & { hostName: string },
  clients: Map<string, CosmosClient>,
): Promise<ChangeFeedProcessor> {
  const { name } = registration;
  const trigger = registration.options as CosmosDBv4FunctionOptions;
  if (trigger.changeFeedMode === 'AllVersionsAndDeletes')
    throw new TypeError(`function ${name}: changeFeedMode AllVersionsAndDeletes is not supported by the local host`);
  if (trigger.startFromBeginning && trigger.startFromTime)
    throw new TypeError(`function ${name}: only one of startFromBeginning or startFromTime can be used`);
  const resolve = (value: string, property: string) =>
    resolveSettingExpression(value, options.settings, { functionName: name, property });
  const monitored = containerOf(
    clients,
    options.settings,
    resolve(trigger.connection, 'connection'),
    resolve(trigger.databaseName, 'databaseName'),
    resolve(trigger.containerName, 'containerName'),
    name,
  );
  const leaseDatabase = resolve(trigger.leaseDatabaseName ?? trigger.databaseName, 'leaseDatabaseName');
  const leaseContainerName = resolve(trigger.leaseContainerName ?? 'leases', 'leaseContainerName');
  const leaseContainer = containerOf(
    clients,
    options.settings,
    resolve(trigger.leaseConnection ?? trigger.connection, 'leaseConnection'),
    leaseDatabase,
    leaseContainerName,
    name,
  );

  if (trigger.createLeaseContainerIfNotExists) {
    await leaseContainer.database.containers.createIfNotExists({
      id: leaseContainerName,
      partitionKey: { paths: ['/id'] },
    });
  } else {
    const found = await leaseContainer.read().then(
      () => true,
      (error: { code?: unknown }) => (error.code === 404 ? false : Promise.reject(error)),
    );
    if (!found)
      throw new Error(
        `function ${name}: the lease container ${leaseDatabase}/${leaseContainerName} does not exist (create it, or set createLeaseContainerIfNotExists)`,
      );
  }
  const [{ resource: database }, { resource: container }] = await Promise.all([
    monitored.database.read(),
    monitored.read(),
  ]);
  if (database?._rid === undefined || container?._rid === undefined)
    throw new Error(`function ${name}: cannot read ${monitored.database.id}/${monitored.id}`);
  const accountHost = new URL((await monitored.database.client.getReadEndpoint()) ?? 'http://localhost').host;
  const prefix = leaseIdPrefix(
    resolve(trigger.leaseContainerPrefix ?? '', 'leaseContainerPrefix'),
    accountHost,
    database._rid,
    container._rid,
  );

  const positive = (value: number | undefined, fallback: number) =>
    value !== undefined && value > 0 ? value : fallback;
  const timing: ChangeFeedProcessorTiming = {
    feedPollDelayMs: positive(trigger.feedPollDelay, COSMOS_TRIGGER_DEFAULTS.feedPollDelayMs),
    leaseAcquireIntervalMs: positive(trigger.leaseAcquireInterval, COSMOS_TRIGGER_DEFAULTS.leaseAcquireIntervalMs),
    leaseExpirationIntervalMs: positive(
      trigger.leaseExpirationInterval,
      COSMOS_TRIGGER_DEFAULTS.leaseExpirationIntervalMs,
    ),
    leaseRenewIntervalMs: positive(trigger.leaseRenewInterval, COSMOS_TRIGGER_DEFAULTS.leaseRenewIntervalMs),
    maxItemsPerInvocation: positive(trigger.maxItemsPerInvocation, COSMOS_TRIGGER_DEFAULTS.maxItemsPerInvocation),
    startFromBeginning: trigger.startFromBeginning ?? false,
    ...(trigger.startFromTime !== undefined && { startFromTime: trigger.startFromTime }),
  };
  const processor = new ChangeFeedProcessor({
    functionName: name,
    hostName: options.hostName,
    monitored,
    containerRid: container._rid,
    leases: new LeaseStore(leaseContainer, prefix),
    timing,
    retry: trigger.retry,
    logger: options.logger,
    invoke: async (documents) => {
      const context = createInvocationContext(options.logger, { functionName: name });
      try {
        await inInvocation({ function: name, invocationId: context.invocationId }, () =>
          trigger.handler(documents, context),
        );
        options.summary?.record(name, 'batches');
      } catch (error) {
        options.summary?.record(name, 'failed batches');
        throw error;
      }
    },
  });
  await processor.start();
  options.logger.debug(
    { function: name, container: `${monitored.database.id}/${monitored.id}`, leases: prefix, owner: options.hostName },
    'cosmos DB trigger started',
  );
  return processor;
}

function containerOf(
  clients: Map<string, CosmosClient>,
  settings: AppSettings,
  connection: string,
  database: string,
  container: string,
  functionName: string,
): Container {
  let client = clients.get(connection);
  if (client === undefined) {
    const value = settings[connection];
    if (value === undefined || value === '')
      throw new Error(`function ${functionName}: the connection setting ${connection} is not set`);
    client = new CosmosClient({ connectionString: value, connectionPolicy: { enableEndpointDiscovery: false } });
    clients.set(connection, client);
  }
  return client.database(database).container(container);
}
