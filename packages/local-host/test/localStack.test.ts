import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CosmosClient } from '@azure/cosmos';
import { describe, expect, it } from 'vitest';
import { startLocalHost } from '../src/localHost.js';
import { capturingLogger } from './support/logCapture.js';
import { waitFor } from './support/serviceBusFixture.js';

const ledger = {
  ledgerId: 'L-stack-1',
  entries: [
    {
      entryId: 'st-1',
      orderId: 'st-o1',
      sequence: 1,
      type: 'OrderCreated',
      data: { customerId: 'c-1', currency: 'EUR' },
    },
    {
      entryId: 'st-2',
      orderId: 'st-o2',
      sequence: 1,
      type: 'OrderCreated',
      data: { customerId: 'c-2', currency: 'USD' },
    },
    {
      entryId: 'st-3',
      orderId: 'st-o1',
      sequence: 2,
      type: 'TransactionAdded',
      data: { transactionId: 't-1', amount: 1250 },
    },
    {
      entryId: 'st-4',
      orderId: 'st-o1',
      sequence: 3,
      type: 'TransactionAmended',
      data: { transactionId: 't-1', amount: 1100 },
    },
  ],
};

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('the whole local stack in-process', () => {
  it("runs the app's own functions on the embedded emulators: POST a ledger, read the orders, then drain and stop", async () => {
    // Prepare: settings naming another database and container, and Application Insights (a stand-in SDK).
    const { logger, lines } = capturingLogger();
    const dir = await mkdtemp(join(tmpdir(), 'local-stack-'));
    const settingsFile = join(dir, 'local.settings.json');
    await writeFile(
      settingsFile,
      JSON.stringify({
        Values: {
          COSMOS_DATABASE: 'convoy-local',
          COSMOS_CONTAINER: 'orders-local',
          APPLICATIONINSIGHTS_CONNECTION_STRING: 'InstrumentationKey=x',
        },
      }),
    );
    const insights: string[] = [];
    const loadApplicationInsights = async () => ({
      useAzureMonitor: () => void insights.push('started'),
      shutdownAzureMonitor: async () => void insights.push('shut down'),
    });
    const host = await startLocalHost({
      httpPort: 0,
      serviceBusPort: 0,
      cosmosPort: 0,
      serviceBusAdminPort: 0,
      logger,
      settingsFile,
      loadApplicationInsights,
    });
    // The app's terminate hook, noting the settings it ran with.
    const terminated: string[] = [];
    const app = host.app!;
    const terminate = app.terminate.bind(app);
    app.terminate = () => (terminated.push(process.env.ServiceBusConnection ?? ''), terminate());
    const sbPort = Number(/sb:\/\/127\.0\.0\.1:(\d+)/.exec(host.connectionStrings.ServiceBusConnection ?? '')?.[1]);
    const cosmosPort = Number(
      /AccountEndpoint=http:\/\/127\.0\.0\.1:(\d+)/.exec(host.connectionStrings.CosmosConnection ?? '')?.[1],
    );
    let closed = false;
    try {
      expect(process.env.ServiceBusConnection).toBe(host.connectionStrings.ServiceBusConnection);
      // Act
      const posted = await fetch(`${host.httpUrl}/ledgers`, {
        method: 'POST',
        body: JSON.stringify(ledger),
        headers: { 'content-type': 'application/json' },
      });
      expect(posted.status).toBe(202);
      const processed = () => lines.filter((l) => l.msg === 'message processed' && l.function === 'orderProcessor');
      await waitFor(() => processed().length === 4, 15_000, 'four entries processed');
      // Assess
      const order = (await (await fetch(`${host.httpUrl}/orders/st-o1`)).json()) as Record<string, unknown>;
      expect(order).toMatchObject({ orderId: 'st-o1', status: 'open', lastSequence: 3, total: 1100 });
      expect((await fetch(`${host.httpUrl}/orders/st-o2`)).status).toBe(200);
      expect((await fetch(`${host.httpUrl}/orders/absent`)).status).toBe(404);
      expect(processed().find((l) => l.entryId === 'st-3')).toMatchObject({
        level: 20,
        orderId: 'st-o1',
        sequence: 2,
        outcome: 'completed',
        durationMs: expect.any(Number),
      });
      expect(lines.find((l) => l.function === 'ledgerSplitter' && l.msg === 'message processed')).toMatchObject({
        ledgerId: 'L-stack-1',
        outcome: 'completed',
      });
      const cosmos = new CosmosClient(host.connectionStrings.CosmosConnection ?? '');
      const { resource: stored } = await cosmos
        .database('convoy-local')
        .container('orders-local')
        .item('order', 'st-o1')
        .read<{ lastSequence: number }>();
      cosmos.dispose();
      expect(stored?.lastSequence).toBe(3);
      expect(insights).toEqual(['started']);
      expect(terminated).toEqual([]);
      await host.close();
      closed = true;
      // The hook ran on close, before the settings were restored.
      expect(terminated).toEqual([host.connectionStrings.ServiceBusConnection]);
      expect(insights).toEqual(['started', 'shut down']);
      expect(await portOpen(sbPort)).toBe(false);
      expect(await portOpen(cosmosPort)).toBe(false);
      await expect(fetch(`${host.httpUrl}/orders/st-o1`)).rejects.toThrow();
      expect(process.env.ServiceBusConnection).not.toBe(host.connectionStrings.ServiceBusConnection);
    } finally {
      if (!closed) await host.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
