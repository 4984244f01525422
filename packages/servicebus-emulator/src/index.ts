import { writeFile } from 'node:fs/promises';
import { loadOrCreateCertificate } from '@ledger-convoy/dev-certificate';
import { AdminServer } from './admin/adminServer.js';
import { AccessControl, ROOT_KEY, ROOT_KEY_NAME } from './auth/accessControl.js';
import { AtomRouter } from './admin/atom/atomRouter.js';
import { Broker } from './broker/broker.js';
import { EntityManager } from './broker/entityManager.js';
import type { PersistNamespace } from './broker/entityManager.js';
import { loadConfig } from './config.js';
import type { AuthorizationRule } from './config.js';
import { AmqpServer } from './server/amqpServer.js';
import type { ServerLog } from './server/amqpServer.js';
import { EntityCatalog } from './store/entityCatalog.js';
import { FileStore } from './store/fileStore.js';
import { MemoryStore } from './store/memoryStore.js';
import type { MessageStore } from './store/messageStore.js';

export { ConfigError, loadConfig } from './config.js';
export type { NamespaceConfig, EntitySettings } from './config.js';
export { BrokerErrorCode } from './errors/brokerError.js';
export type { EntityStats } from './broker/broker.js';
/** The admin HTTP server on an engine of one's own (tests). @internal */
export { AdminServer } from './admin/adminServer.js';

/** Options of {@link start}. */
export interface StartOptions {
  /** AMQP port; 0 picks a free one. @default 5672 */
  port?: number;
  /** Config.json path, or the parsed object. @default a namespace without entities */
  config?: string | object;
  /** Directory for the durable log; in memory when absent. @default undefined */
  dataDir?: string;
  /** HTTP admin port (health, stats, the ATOM management API); 0 disables it. @default 5300 */
  adminPort?: number;
  /**
   * HTTPS port of the ATOM management API (what the JS administration client needs); 0 disables it.
   * @default 5301, or 0 when `adminPort` is 0 (no admin surface at all)
   */
  adminHttpsPort?: number;
  /** File to write the HTTPS port's self-signed certificate to (PEM), for `NODE_EXTRA_CA_CERTS`. @default undefined */
  certOut?: string;
  /**
   * Where the HTTPS certificate is kept and reused across starts (making one is a large part of a start).
   * @default `dataDir` (a fresh certificate each start without one)
   */
  certDir?: string;
  /** Interface to bind. @default '127.0.0.1' */
  host?: string;
  /**
   * Accept any shared access signature and any key, as before credentials were checked. Otherwise a token must be
   * signed with a key of the namespace (`RootManageSharedAccessKey` / `SAS_KEY_VALUE`, and Config.json's
   * `AuthorizationRules`) or of the entity, and grant the right the operation needs. @default false
   */
  allowAnyKey?: boolean;
  /** Log sink for protocol warnings. @default silent */
  log?: ServerLog;
  /**
   * Azure's round trip, simulated: each AMQP operation (an attach, a flow's transfers, a disposition, a `$cbs` or
   * `$management` request) is answered no earlier than this many ms after it arrived, plus up to 10 % jitter,
   * without holding up other links or connections (`--latency`). The ATOM/admin HTTP API is not delayed. @default 0
   */
  latencyMs?: number;
}

/** A running emulator. */
export interface RunningEmulator {
  /** Connection string for the Azure SDKs (`UseDevelopmentEmulator=true`: plain AMQP). */
  readonly connectionString: string;
  /** Bound AMQP port. */
  readonly port: number;
  /** Bound admin port, or undefined when disabled. */
  readonly adminPort: number | undefined;
  /** Bound HTTPS management port, or undefined when disabled. */
  readonly adminHttpsPort: number | undefined;
  /**
   * Connection string for `ServiceBusAdministrationClient`: the HTTPS port (the JS client always uses https;
   * trust {@link certificatePem}), else the HTTP port with `UseDevelopmentEmulator=true` (.NET then uses http).
   */
  readonly administrationConnectionString: string | undefined;
  /** The HTTPS port's certificate (PEM), or undefined when HTTPS is off. */
  readonly certificatePem: string | undefined;
  /** The engine (stats, tests). @internal */
  readonly broker: Broker;
  /** Stops both servers, flushes the store. */
  close(): Promise<void>;
}

/** The well-known root rule, unless Config.json brings one of that name, then Config.json's rules. */
function namespaceRules(fromConfig: readonly AuthorizationRule[]): AuthorizationRule[] {
  const root: AuthorizationRule = {
    keyName: ROOT_KEY_NAME,
    primaryKey: ROOT_KEY,
    secondaryKey: ROOT_KEY,
    rights: ['Manage', 'Send', 'Listen'],
    createdAt: 0,
    modifiedAt: 0,
  };
  return fromConfig.some((r) => r.keyName === ROOT_KEY_NAME) ? [...fromConfig] : [root, ...fromConfig];
}

/** A namespace without entities: what starts when no Config.json is given (entities then come through management). */
export const EMPTY_CONFIG = {
  UserConfig: { Namespaces: [{ Name: 'sbemulatorns', Queues: [], Topics: [] }], Logging: { Type: 'Console' } },
};

/** Starts the Service Bus emulator. */
export async function start(options: StartOptions = {}): Promise<RunningEmulator> {
  const host = options.host ?? '127.0.0.1';
  const catalog = options.dataDir ? EntityCatalog.at(options.dataDir) : undefined;
  // A data directory that already holds the namespace keeps what the management API made of it.
  const fromFile = loadConfig(options.config ?? EMPTY_CONFIG);
  const config = catalog ? catalog.resolve(fromFile) : fromFile;
  const store: MessageStore = options.dataDir ? await FileStore.open(options.dataDir) : new MemoryStore();
  const broker = new Broker(config, store);
  const persist: PersistNamespace = (ns, idleDeleted) => (catalog ? catalog.save(ns, idleDeleted) : Promise.resolve());
  const entities = new EntityManager(broker, persist);
  entities.watchIdle();
  const access = new AccessControl({
    namespaceRules: namespaceRules(config.authorizationRules),
    entityRules: (path) => broker.rulesAt(path),
    allowAnyKey: options.allowAnyKey,
  });
  const amqp = new AmqpServer(broker, { entities, access, log: options.log, latencyMs: options.latencyMs });
  let port: number | undefined;
  const admin = new AdminServer(broker, new AtomRouter({ broker, entities, access }));
  let adminPort: number | undefined;
  let adminHttpsPort: number | undefined;
  let certificatePem: string | undefined;
  try {
    await persist(broker.snapshot());
    port = await amqp.listen(host, options.port ?? 5672);
    const wantedAdmin = options.adminPort ?? 5300;
    adminPort = wantedAdmin === 0 ? undefined : await admin.listen(host, wantedAdmin);
    const wantedHttps = options.adminHttpsPort ?? (wantedAdmin === 0 ? 0 : 5301);
    if (wantedHttps !== 0) {
      const tls = await loadOrCreateCertificate(options.certDir ?? options.dataDir);
      certificatePem = tls.certPem;
      if (options.certOut) await writeFile(options.certOut, tls.certPem);
      adminHttpsPort = await admin.listenTls(host, wantedHttps, tls);
    }
  } catch (err) {
    await admin.close();
    await amqp.close();
    broker.close();
    await store.close();
    throw err;
  }
  let closing: Promise<void> | undefined;
  const key = `SharedAccessKeyName=${ROOT_KEY_NAME};SharedAccessKey=${ROOT_KEY}`;
  // The management endpoint ends in '/' as Azure's connection strings do: clients build entity addresses from it
  // (`sb://host:port/name`, as the management API names forwarding targets).
  const administrationConnectionString =
    adminHttpsPort !== undefined
      ? `Endpoint=sb://${host}:${adminHttpsPort}/;${key};`
      : adminPort !== undefined
        ? `Endpoint=sb://${host}:${adminPort};${key};UseDevelopmentEmulator=true;`
        : undefined;
  return {
    connectionString: `Endpoint=sb://${host}:${port};${key};UseDevelopmentEmulator=true;`,
    port,
    adminPort,
    adminHttpsPort,
    administrationConnectionString,
    certificatePem,
    broker,
    close() {
      closing ??= (async () => {
        await Promise.all([amqp.close(), admin.close()]);
        broker.close();
        await store.close();
      })();
      return closing;
    },
  };
}
