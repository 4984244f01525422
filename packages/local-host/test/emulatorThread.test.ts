import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CosmosClient } from '@azure/cosmos';
import { ServiceBusClient } from '@azure/service-bus';
import { startEmulatorStack } from '../src/emulatorStack.js';
import { startEmulatorThread } from '../src/emulatorThread.js';

let taken: Server;
let takenPort: number;

beforeAll(async () => {
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  takenPort = (taken.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((resolve) => taken.close(resolve));
});

describe('an emulator in a worker thread', () => {
  it('serves the SDK from its thread, and closing twice closes once', async () => {
    const cosmos = await startEmulatorThread({ service: 'cosmos', options: { port: 0 } });
    const [, key] = /AccountKey=([^;]+)/.exec(cosmos.connectionString) ?? [];
    const client = new CosmosClient({
      endpoint: String(cosmos.endpoint),
      key: String(key),
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const { database } = await client.databases.createIfNotExists({ id: 'thread-check' });
    expect(database.id).toBe('thread-check');
    client.dispose();
    const first = cosmos.close();
    expect(cosmos.close()).toBe(first);
    await first;
  });

  it('creates the databases and containers it is asked for, and answers queries on them', async () => {
    const cosmos = await startEmulatorThread({ service: 'cosmos', options: { port: 0 } });
    await cosmos.ensureDatabases([{ id: 'seeded', containers: [{ id: 'c', partitionKey: { paths: ['/pk'] } }] }]);
    const client = new CosmosClient({
      endpoint: String(cosmos.endpoint),
      key: String(/AccountKey=([^;]+)/.exec(cosmos.connectionString)?.[1]),
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const container = client.database('seeded').container('c');
    expect((await container.read()).resource?.partitionKey?.paths).toEqual(['/pk']);
    await container.items.create({ id: 'a', pk: 'p' });
    expect((await container.items.query('SELECT VALUE c.id FROM c').fetchAll()).resources).toEqual(['a']);
    client.dispose();
    await cosmos.close();
  });

  it('throttles a container past the throughput it was started with, as Azure does (429, substatus 3200)', async () => {
    const cosmos = await startEmulatorThread({ service: 'cosmos', options: { port: 0, throughput: 0.01 } });
    await cosmos.ensureDatabases([{ id: 'budget', containers: [{ id: 'c', partitionKey: { paths: ['/pk'] } }] }]);
    const client = new CosmosClient({
      endpoint: String(cosmos.endpoint),
      key: String(/AccountKey=([^;]+)/.exec(cosmos.connectionString)?.[1]),
      connectionPolicy: { enableEndpointDiscovery: false, retryOptions: { maxRetryAttemptCount: 0 } as never },
    });
    const container = client.database('budget').container('c');
    // A hundredth of a request unit a second: the first create (4.95 RU) overdraws the bucket for over eight minutes.
    await container.items.create({ id: 'a', pk: 'p' });
    await expect(container.items.create({ id: 'b', pk: 'p' })).rejects.toMatchObject({ code: 429, substatus: 3200 });
    client.dispose();
    await cosmos.close();
  });

  it('refuses databases to the Service Bus emulator, which has none', async () => {
    const serviceBus = await startEmulatorThread({
      service: 'servicebus',
      options: {
        port: 0,
        config: fileURLToPath(new URL('../../../infra/servicebus.config.json', import.meta.url)),
        adminPort: 0,
      },
    });
    await expect(serviceBus.ensureDatabases([{ id: 'convoy' }])).rejects.toThrow(
      /the servicebus emulator: the servicebus emulator has no databases/,
    );
    await serviceBus.close();
  });

  it('rejects with the emulator and the reason when it cannot start, leaving no thread behind', async () => {
    await expect(startEmulatorThread({ service: 'cosmos', options: { port: takenPort } })).rejects.toThrow(
      /the cosmos emulator: .*EADDRINUSE/,
    );
  });
});

/** What `npm start`'s launcher (bin/local-host.mjs) leaves for the host: threads already loading their emulator. */
const LAUNCHER_WORKERS = Symbol.for('ledger-convoy.emulatorWorkers');
const script = new URL('../src/emulatorWorkerBoot.mjs', import.meta.url);
const globals = globalThis as { [key: symbol]: unknown };

describe('an emulator thread npm start started before the host loaded', () => {
  afterEach(() => {
    delete globals[LAUNCHER_WORKERS];
  });

  it('is the thread the emulator runs in, taken once', async () => {
    const waiting = new Worker(script, { workerData: { service: 'cosmos' } });
    const exited = new Promise((resolve) => waiting.once('exit', resolve));
    const taken: string[] = [];
    globals[LAUNCHER_WORKERS] = {
      script,
      take: (service: string) => (taken.push(service), taken.length === 1 ? waiting : undefined),
    };
    const cosmos = await startEmulatorThread({ service: 'cosmos', options: { port: 0 } });
    const client = new CosmosClient({
      endpoint: String(cosmos.endpoint),
      key: String(/AccountKey=([^;]+)/.exec(cosmos.connectionString)?.[1]),
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    expect((await client.databases.createIfNotExists({ id: 'launched' })).database.id).toBe('launched');
    client.dispose();
    expect(taken).toEqual(['cosmos']);
    await cosmos.close();
    await exited;
  });

  it("is started from the launcher's bundle when none waits for that emulator", async () => {
    // The launcher's script here: the usual one, announcing itself first.
    const dir = mkdtempSync(join(tmpdir(), 'launcher-script-'));
    const marker = join(dir, 'started');
    const wrapper = join(dir, 'worker.mjs');
    writeFileSync(
      wrapper,
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, '');\nawait import(${JSON.stringify(script.href)});\n`,
    );
    globals[LAUNCHER_WORKERS] = { script: pathToFileURL(wrapper), take: () => undefined };
    const serviceBus = await startEmulatorThread({
      service: 'servicebus',
      options: {
        port: 0,
        config: fileURLToPath(new URL('../../../infra/servicebus.config.json', import.meta.url)),
        adminPort: 0,
      },
    });
    expect(serviceBus.connectionString).toMatch(/^Endpoint=sb:\/\/127\.0\.0\.1:\d+;/);
    expect(existsSync(marker)).toBe(true);
    await serviceBus.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts both emulators with the latency it is given: each answers no earlier than that', async () => {
    // Prepare
    const latencyMs = 150;
    const stack = await startEmulatorStack({ serviceBusPort: 0, cosmosPort: 0, adminPort: 0, latencyMs });
    const cosmos = new CosmosClient({
      connectionString: stack.cosmosConnectionString,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const bus = new ServiceBusClient(stack.serviceBusConnectionString);
    const sender = bus.createSender('ledger');
    try {
      await sender.sendMessages({ body: 'warm' });
      // Act
      let started = performance.now();
      await sender.sendMessages({ body: 'timed' });
      const send = performance.now() - started;
      started = performance.now();
      await cosmos.databases.readAll().fetchAll();
      const read = performance.now() - started;
      // Assess
      expect(send).toBeGreaterThanOrEqual(latencyMs);
      expect(read).toBeGreaterThanOrEqual(latencyMs);
    } finally {
      await bus.close();
      cosmos.dispose();
      await stack.close();
    }
  });
});
