import { randomUUID } from 'node:crypto';
import { CosmosClient, type Container, type Database } from '@azure/cosmos';
import type { CosmosDBv4FunctionOptions } from '@azure/functions';
import pino, { type Logger } from 'pino';
import { start as startCosmos, type CosmosEmulator } from '@ledger-convoy/cosmos-emulator';
import { startCosmosDBHost, type CosmosDBHost } from '../../src/cosmos/cosmosDBHost.js';
import type { RegistrationOf } from '../../src/registrations.js';
import type { ChangeFeedLease } from 'ledger-convoy/adapters/changeFeedLease';

/** A document the tests write: `orderId` is the partition key, `n` tells them apart. */
export interface Doc {
  id: string;
  orderId: string;
  n: number;
}

/** One invocation as a handler saw it. */
export interface Invocation {
  host: string;
  ids: string[];
}

/** The emulator (two partition key ranges, so two leases), a database with `leases`, and hosts on it. */
export class TriggerFixture {
  readonly hosts: CosmosDBHost[] = [];
  private constructor(
    readonly emulator: CosmosEmulator,
    readonly client: CosmosClient,
    readonly database: Database,
  ) {}

  static async start(partitionKeyRanges = 2): Promise<TriggerFixture> {
    const emulator = await startCosmos({ port: 0, partitionKeyRanges });
    const client = new CosmosClient({
      endpoint: emulator.endpoint,
      key: emulator.key,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const { database } = await client.databases.createIfNotExists({ id: 'db' });
    await database.containers.createIfNotExists({ id: 'leases', partitionKey: { paths: ['/id'] } });
    return new TriggerFixture(emulator, client, database);
  }

  /** A new monitored container. */
  async container(): Promise<Container> {
    const { container } = await this.database.containers.createIfNotExists({
      id: `c-${randomUUID().slice(0, 8)}`,
      partitionKey: { paths: ['/orderId'] },
    });
    return container;
  }

  /** Writes `count` documents spread over orders (hence over both ranges). */
  async write(container: Container, count: number, from = 0): Promise<Doc[]> {
    const docs: Doc[] = [];
    for (let n = from; n < from + count; n++) {
      const doc = { id: `d-${n}`, orderId: `o-${n % 7}`, n };
      await container.items.create(doc);
      docs.push(doc);
    }
    return docs;
  }

  /** A registration of `container`'s trigger with fast lease timing; `handler` gets the host's name too. */
  registration(
    container: Container,
    options: Partial<CosmosDBv4FunctionOptions> & { prefix?: string },
    handler: (docs: Doc[], host: string) => Promise<void>,
  ): (host: string) => RegistrationOf<'cosmosDB'> {
    return (host) => ({
      kind: 'cosmosDB',
      name: 'trigger',
      options: {
        connection: 'Cosmos',
        databaseName: '%DB_NAME%',
        containerName: container.id,
        leaseContainerName: 'leases',
        leaseContainerPrefix: options.prefix ?? `${container.id}-`,
        feedPollDelay: 50,
        leaseAcquireInterval: 100,
        leaseRenewInterval: 100,
        leaseExpirationInterval: 1_000,
        startFromBeginning: true,
        ...options,
        handler: (docs: unknown[]) => handler(docs as Doc[], host),
      } as CosmosDBv4FunctionOptions,
    });
  }

  /** Starts a host named `name` serving `registration` (logging to `logger`, silent by default). */
  async host(
    name: string,
    registration: (host: string) => RegistrationOf<'cosmosDB'>,
    logger: Logger = pino({ level: 'silent' }),
  ): Promise<CosmosDBHost> {
    const host = await startCosmosDBHost({
      functions: [registration(name)],
      settings: { Cosmos: this.emulator.connectionString, DB_NAME: this.database.id },
      logger,
      hostName: name,
    });
    this.hosts.push(host);
    return host;
  }

  /** The lease documents of `prefix`. */
  async leases(prefix: string): Promise<ChangeFeedLease[]> {
    const { resources } = await this.database
      .container('leases')
      .items.query<ChangeFeedLease>({
        query: 'SELECT * FROM c WHERE STARTSWITH(c.id, @p)',
        parameters: [{ name: '@p', value: prefix }],
      })
      .fetchAll();
    return resources.sort((a, b) => (a.LeaseToken < b.LeaseToken ? -1 : 1));
  }

  /** Stops every host started so far (crashed ones included), so the next test's reads are its own. */
  async closeHosts(): Promise<void> {
    await Promise.allSettled(this.hosts.splice(0).map((h) => h.close()));
  }

  async close(): Promise<void> {
    await this.closeHosts();
    this.client.dispose();
    await this.emulator.close();
  }
}

/** A promise with its resolver, to hold a handler until the test lets it go. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}
