import { CosmosClient } from '@azure/cosmos';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { start as startCosmos } from '@ledger-convoy/cosmos-emulator';
import type { CosmosEmulator } from '@ledger-convoy/cosmos-emulator';
import type { AppSettings } from '../../src/adapters/azureSettings.js';
import { app } from '@azure/functions';
import { composeApp } from '../../src/functions/app.js';
import { setEnv } from '../outbox/support/eventually.js';
import { HttpRequest } from '@ledger-convoy/local-host';
import { handlerOf, invocation } from './support/stack.js';

let cosmos: CosmosEmulator;
/** A Service Bus the app never reaches in these tests: its client connects on first use only. */
const SERVICE_BUS =
  'Endpoint=sb://127.0.0.1:1;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=SAS_KEY_VALUE;UseDevelopmentEmulator=true;';

beforeAll(async () => {
  cosmos = await startCosmos({ port: 0 });
});

afterAll(async () => {
  await cosmos?.close();
});

/** A client of the emulator, for what a test prepares or reads beside the app. */
function emulatorClient(): CosmosClient {
  return new CosmosClient({
    endpoint: cosmos.endpoint,
    key: cosmos.key,
    connectionPolicy: { enableEndpointDiscovery: false },
  });
}

/** The app on `settings`, read at each start as the host would read its app settings. */
function appOn(settings: AppSettings, deps: Omit<Parameters<typeof composeApp>[0] & object, 'settings'> = {}) {
  return composeApp({
    settings: () => ({
      LOG_LEVEL: 'silent',
      ServiceBusConnection: SERVICE_BUS,
      CosmosConnection: cosmos.connectionString,
      ...settings,
    }),
    ...deps,
  });
}

/** What the `getOrder` function answers for `orderId`, or the error it throws. */
async function getOrder(app: ReturnType<typeof composeApp>, orderId: string): Promise<unknown> {
  const handler = handlerOf(app, 'getOrder') as (request: unknown, context: unknown) => Promise<unknown>;
  const request = new HttpRequest({
    method: 'GET',
    url: `http://localhost/api/orders/${orderId}`,
    params: { orderId },
  });
  return Promise.resolve()
    .then(() => handler(request, invocation('getOrder')))
    .catch((error: unknown) => error);
}

describe('the composed app', () => {
  it('builds its context at start from the settings of that moment, keeps it until terminate, and a new one at the next start', async () => {
    // Prepare
    const settings: Record<string, string> = { LEDGER_LOCK_DURATION: 'PT1M' };
    const app = appOn(settings);
    // Act
    await app.start();
    const first = app.context();
    settings.LEDGER_LOCK_DURATION = 'PT2M';
    const again = app.context();
    const sender = first.sender('orders');
    await app.terminate();
    const afterTerminate = await getOrder(app, 'o-1');
    await app.start();
    const restarted = app.context();
    const restartedSender = restarted.sender('orders');
    await app.start();
    // Assess
    expect(again).toBe(first);
    expect(first.ledgerLockDurationMs).toBe(60_000);
    expect(sender.isClosed).toBe(true);
    expect(afterTerminate).toMatchObject({ message: expect.stringContaining('terminated') });
    expect(restarted).not.toBe(first);
    expect(restarted.ledgerLockDurationMs).toBe(120_000);
    expect(restartedSender.isClosed).toBe(true); // a second start closed the context of the first
    await app.terminate();
  });

  it('hands every function the one context: the order store of the database and container the settings name', async () => {
    // Prepare: an order document in a database and container with other names.
    const client = emulatorClient();
    const { database } = await client.databases.createIfNotExists({ id: 'convoy-blue' });
    const { container } = await database.containers.createIfNotExists({
      id: 'orders-blue',
      partitionKey: { paths: ['/orderId'] },
    });
    await container.items.create({
      id: 'order',
      docType: 'order',
      orderId: 'o-blue',
      lastSequence: 1,
      parked: [],
      rejected: [],
      state: { status: 'open', customerId: 'c-1', currency: 'EUR', total: 0, transactionCount: 0 },
    });
    const { database: convoy } = await client.databases.createIfNotExists({ id: 'convoy' });
    await convoy.containers.createIfNotExists({ id: 'orders', partitionKey: { paths: ['/orderId'] } });
    client.dispose();
    const blue = appOn({ COSMOS_DATABASE: 'convoy-blue', COSMOS_CONTAINER: 'orders-blue' });
    const plain = appOn({});
    await blue.start();
    await plain.start();
    try {
      // Act
      const found = await getOrder(blue, 'o-blue');
      const absent = await getOrder(plain, 'o-blue');
      // Assess
      expect(blue.context().container).toMatchObject({ id: 'orders-blue', database: { id: 'convoy-blue' } });
      expect(plain.context().container).toMatchObject({ id: 'orders', database: { id: 'convoy' } });
      expect(found).toMatchObject({ status: 200, jsonBody: { orderId: 'o-blue' } });
      expect(absent).toMatchObject({ status: 404 });
    } finally {
      await Promise.all([blue.terminate(), plain.terminate()]);
    }
  });

  it('answers 503 with Retry-After while the order store is throttled, and leaves any other failure to the host', async () => {
    // Prepare
    const client = emulatorClient();
    const { database } = await client.databases.createIfNotExists({ id: 'convoy' });
    await database.containers.createIfNotExists({ id: 'orders', partitionKey: { paths: ['/orderId'] } });
    client.dispose();
    const app = appOn({});
    await app.start();
    try {
      // Act
      cosmos.faults.add({ operation: 'read', status: 429, count: 1 });
      const throttled = await getOrder(app, 'o-throttled');
      cosmos.faults.add({ operation: 'read', status: 500, count: 1 });
      const failed = await getOrder(app, 'o-failed');
      const recovered = await getOrder(app, 'o-recovered');
      // Assess
      expect(throttled).toEqual({
        status: 503,
        headers: { 'Retry-After': '1' },
        jsonBody: { error: 'ServiceUnavailable' },
      });
      expect(failed).toMatchObject({ code: 'StoreFailed' });
      expect(recovered).toMatchObject({ status: 404 });
    } finally {
      cosmos.faults.clear();
      await app.terminate();
    }
  });

  it('skips a timer tick the order store throttles with a warn line and no error, and fails one on any other failure', async () => {
    // Prepare: the orders and leases containers, and an app whose log lines the test reads.
    const client = emulatorClient();
    const { database } = await client.databases.createIfNotExists({ id: 'convoy' });
    await database.containers.createIfNotExists({ id: 'orders', partitionKey: { paths: ['/orderId'] } });
    await database.containers.createIfNotExists({ id: 'leases', partitionKey: { paths: ['/id'] } });
    client.dispose();
    const lines: string[] = [];
    const app = appOn({ LOG_LEVEL: 'info' }, { logDestination: { write: (line: string) => void lines.push(line) } });
    await app.start();
    const tick = (name: string) => {
      const handler = handlerOf(app, name) as (timer: unknown, context: unknown) => Promise<unknown>;
      return Promise.resolve()
        .then(() => handler({ isPastDue: false }, invocation(name)))
        .catch((error: unknown) => error);
    };
    try {
      // Act
      const throttling = cosmos.faults.add({ operation: '*', status: 429, count: 1_000, retryAfterMs: 250 });
      const holdRetry = await tick('outboxHoldRetry');
      const gauges = await tick('outboxGauges');
      cosmos.faults.remove(throttling);
      cosmos.faults.add({ operation: 'query', status: 500, count: 1 });
      const failed = await tick('outboxHoldRetry');
      const next = await tick('outboxHoldRetry');
      // Assess
      const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect([holdRetry, gauges]).toEqual([undefined, undefined]);
      expect(logged.filter((l) => l.msg === 'store throttled, tick skipped')).toEqual([
        expect.objectContaining({ level: 40, function: 'outboxHoldRetry', retryAfterMs: 250 }),
        expect.objectContaining({ level: 40, function: 'outboxGauges', retryAfterMs: 250 }),
      ]);
      expect(logged.filter((l) => (l.level as number) >= 50 || 'err' in l || 'stack' in l)).toEqual([]);
      expect(failed).toMatchObject({ code: 'StoreFailed' });
      expect(next).toMatchObject({ holds: 0, tried: 0 });
    } finally {
      cosmos.faults.clear();
      await app.terminate();
    }
  });

  it.each([
    ['COSMOS_CONTAINER', 'orders/2', 'SettingsError'],
    ['OUTBOX_WEBHOOK_URL', 'ftp://example.com/hook', 'ConfigError'],
    ['LEDGER_LOCK_DURATION', 'a minute', 'ConfigError'],
  ])(
    'logs an unusable %s by name at start, and every invocation then fails with that same error',
    async (setting, value, name) => {
      // Prepare
      const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const app = appOn({ [setting]: value });
      try {
        // Act
        await app.start();
        const first = await getOrder(app, 'o-1');
        const second = await getOrder(app, 'o-2');
        // Assess
        expect(logged).toHaveBeenCalledTimes(1);
        expect(logged).toHaveBeenCalledWith(expect.stringContaining(setting));
        expect(first).toMatchObject({ name, setting });
        expect(second).toBe(first);
        expect(() => app.context()).toThrow(first as Error);
      } finally {
        logged.mockRestore();
        await app.terminate();
      }
    },
  );

  it('is what the entry module gives the Functions host: every function by name, and hooks that start and terminate it', async () => {
    // Prepare: record what reaches `app` (outside the host the library would only skip each call).
    const given: string[] = [];
    const hooks: { start?: () => Promise<void>; terminate?: () => Promise<void> } = {};
    const record = (kind: string) =>
      vi.spyOn(app, kind as 'http').mockImplementation((name: string) => void given.push(`${kind}:${name}`));
    const spies: { mockRestore(): void }[] = [
      record('serviceBusQueue'),
      record('http'),
      record('timer'),
      record('cosmosDB'),
    ];
    spies.push(
      vi
        .spyOn(app.hook, 'appStart')
        .mockImplementation(
          (handler) => ((hooks.start = handler as () => Promise<void>), { dispose: () => undefined }) as never,
        ),
    );
    spies.push(
      vi
        .spyOn(app.hook, 'appTerminate')
        .mockImplementation(
          (handler) => ((hooks.terminate = handler as () => Promise<void>), { dispose: () => undefined }) as never,
        ),
    );
    const restore = setEnv({
      LOG_LEVEL: 'silent',
      ServiceBusConnection: SERVICE_BUS,
      CosmosConnection: cosmos.connectionString,
    });
    const logged = vi.spyOn(console, 'error');
    try {
      // Act
      await import('../../src/functions/index.js');
      await hooks.start?.();
      await hooks.terminate?.();
      // Assess
      expect(given).toEqual([
        'serviceBusQueue:ledgerSplitter',
        'serviceBusQueue:orderProcessor',
        'http:getOrder',
        'http:postLedger',
        'cosmosDB:outboxRelay',
        'timer:outboxGauges',
        'timer:outboxHoldRetry',
        'timer:gapMonitor',
      ]);
      expect(hooks.start).toBeTypeOf('function');
      expect(hooks.terminate).toBeTypeOf('function');
      expect(logged).not.toHaveBeenCalled();
    } finally {
      for (const spy of spies) spy.mockRestore();
      logged.mockRestore();
      restore();
    }
  });
});
