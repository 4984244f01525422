import { fileURLToPath } from 'node:url';
import { AdminServer } from './admin/adminServer.js';
import { Broker } from './broker/broker.js';
import { loadConfig } from './config.js';
import { AmqpServer } from './server/amqpServer.js';
import type { ServerLog } from './server/amqpServer.js';
import { FileStore } from './store/fileStore.js';
import { MemoryStore } from './store/memoryStore.js';
import type { MessageStore } from './store/messageStore.js';

export { ConfigError, loadConfig } from './config.js';
export type { NamespaceConfig, EntitySettings } from './config.js';
export { BrokerErrorCode } from './errors/brokerError.js';
export type { EntityStats } from './broker/broker.js';

/** Options of {@link start}. */
export interface StartOptions {
  /** AMQP port; 0 picks a free one. @default 5672 */
  port?: number;
  /** Config.json path, or the parsed object. @default `infra/servicebus.config.json` of this repository */
  config?: string | object;
  /** Directory for the durable log; in memory when absent. @default undefined */
  dataDir?: string;
  /** HTTP admin port; 0 disables it. @default 5300 */
  adminPort?: number;
  /** Interface to bind. @default '127.0.0.1' */
  host?: string;
  /** Log sink for protocol warnings. @default silent */
  log?: ServerLog;
}

/** A running emulator. */
export interface RunningEmulator {
  /** Connection string for the Azure SDKs (`UseDevelopmentEmulator=true`: plain AMQP). */
  readonly connectionString: string;
  /** Bound AMQP port. */
  readonly port: number;
  /** Bound admin port, or undefined when disabled. */
  readonly adminPort: number | undefined;
  /** The engine (stats, tests). @internal */
  readonly broker: Broker;
  /** Stops both servers, flushes the store. */
  close(): Promise<void>;
}

/** The repository's own entity file. */
export const defaultConfigPath = fileURLToPath(new URL('../../infra/servicebus.config.json', import.meta.url));

/** Starts the Service Bus emulator. */
export async function start(options: StartOptions = {}): Promise<RunningEmulator> {
  const host = options.host ?? '127.0.0.1';
  const config = loadConfig(options.config ?? defaultConfigPath);
  const store: MessageStore = options.dataDir ? await FileStore.open(options.dataDir) : new MemoryStore();
  const broker = new Broker(config, store);
  const amqp = new AmqpServer(broker, options.log);
  const admin = new AdminServer(broker);
  let port: number;
  let adminPort: number | undefined;
  try {
    port = await amqp.listen(host, options.port ?? 5672);
    const wantedAdmin = options.adminPort ?? 5300;
    adminPort = wantedAdmin === 0 ? undefined : await admin.listen(host, wantedAdmin);
  } catch (err) {
    await amqp.close();
    broker.close();
    await store.close();
    throw err;
  }
  let closing: Promise<void> | undefined;
  return {
    connectionString: `Endpoint=sb://${host}:${port};SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=SAS_KEY_VALUE;UseDevelopmentEmulator=true;`,
    port,
    adminPort,
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
