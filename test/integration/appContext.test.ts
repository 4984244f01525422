import { CosmosClient } from '@azure/cosmos';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { start as startCosmos } from '../../emulators/cosmos/index.js';
import type { CosmosEmulator } from '../../emulators/cosmos/index.js';
import { appContext, closeAppContext } from '../../src/functions/appContext.js';
import { closeOnTerminate, startApp } from '../../src/functions/appLifecycle.js';
import { registeredStartHooks, registeredTerminateHooks } from '../../src/functions/register.js';
import { setEnv } from '../outbox/support/eventually.js';

let cosmos: CosmosEmulator;

beforeAll(async () => {
  cosmos = await startCosmos({ port: 0 });
});

afterEach(async () => {
  await closeAppContext();
});

afterAll(async () => {
  await cosmos?.close();
});

describe('the app context', () => {
  it('is built once and kept, whatever the settings do, until closeAppContext resets it', async () => {
    // Prepare
    const settings: Record<string, string> = { LOG_LEVEL: 'silent', LEDGER_LOCK_DURATION: 'PT1M' };
    // Act
    const first = appContext(settings);
    settings.LEDGER_LOCK_DURATION = 'PT2M';
    const again = appContext(settings);
    await closeAppContext();
    const rebuilt = appContext(settings);
    // Assess
    expect(again).toBe(first);
    expect(again.functionSettings.ledgerLockDurationMs).toBe(60_000);
    expect(rebuilt).not.toBe(first);
    expect(rebuilt.functionSettings.ledgerLockDurationMs).toBe(120_000);
  });

  it('defaults to the convoy database and orders container', () => {
    const app = appContext({ LOG_LEVEL: 'silent', CosmosConnection: cosmos.connectionString });
    expect(app.cosmosResources).toEqual({ database: 'convoy', container: 'orders' });
    expect(app.container().id).toBe('orders');
    expect(app.container().database.id).toBe('convoy');
  });

  it('reads and writes the database and container named by COSMOS_DATABASE and COSMOS_CONTAINER', async () => {
    // Prepare: an order document in a database and container with other names.
    const client = new CosmosClient({ endpoint: cosmos.endpoint, key: cosmos.key, connectionPolicy: { enableEndpointDiscovery: false } });
    const { database } = await client.databases.createIfNotExists({ id: 'convoy-blue' });
    const { container } = await database.containers.createIfNotExists({ id: 'orders-blue', partitionKey: { paths: ['/orderId'] } });
    await container.items.create({ id: 'order', docType: 'order', orderId: 'o-blue', lastSequence: 0, parked: [], rejected: [] });
    client.dispose();
    const app = appContext({ LOG_LEVEL: 'silent', CosmosConnection: cosmos.connectionString, COSMOS_DATABASE: 'convoy-blue', COSMOS_CONTAINER: 'orders-blue' });
    // Act
    const stored = await app.store().readOrder('o-blue');
    // Assess
    expect(app.cosmosResources).toEqual({ database: 'convoy-blue', container: 'orders-blue' });
    expect(stored?.doc.orderId).toBe('o-blue');
  });

  it('refuses a COSMOS_CONTAINER Cosmos DB would not accept, naming the setting', () => {
    expect(() => appContext({ COSMOS_CONTAINER: 'orders/2' })).toThrow(expect.objectContaining({ name: 'SettingsError', setting: 'COSMOS_CONTAINER' }));
  });

  it('is built by the appStart hook, which logs an unusable setting by name; every call then fails with that same error', async () => {
    // Prepare
    const restore = setEnv({ LOG_LEVEL: 'silent', OUTBOX_WEBHOOK_URL: 'ftp://example.com/hook' });
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      // Act
      startApp();
      const first = (() => { try { appContext(); } catch (error) { return error; } })();
      const second = (() => { try { appContext(); } catch (error) { return error; } })();
      // Assess
      expect(registeredStartHooks()).toContain(startApp);
      expect(logged).toHaveBeenCalledWith(expect.stringContaining('OUTBOX_WEBHOOK_URL'));
      expect(first).toBeUndefined(); // the core's settings are fine: the context itself is built…
      const bad = setEnv({ COSMOS_CONTAINER: 'orders/2' });
      await closeAppContext();
      startApp();
      const third = (() => { try { appContext(); } catch (error) { return error; } })();
      const fourth = (() => { try { appContext(); } catch (error) { return error; } })();
      bad();
      // …and a setting the context needs fails every call, with the very error the start hook logged.
      expect(second).toBeUndefined();
      expect(third).toMatchObject({ name: 'SettingsError', setting: 'COSMOS_CONTAINER' });
      expect(fourth).toBe(third);
      expect(logged).toHaveBeenLastCalledWith(expect.stringContaining((third as Error).message));
    } finally {
      logged.mockRestore();
      restore();
    }
  });

  it('registers an appTerminate hook that closes the context', async () => {
    // Prepare
    const before = appContext({ LOG_LEVEL: 'silent' });
    // Act
    await Promise.all(registeredTerminateHooks().map((hook) => hook({} as never)));
    // Assess
    expect(registeredTerminateHooks()).toContain(closeOnTerminate);
    expect(appContext({ LOG_LEVEL: 'silent' })).not.toBe(before);
  });
});
