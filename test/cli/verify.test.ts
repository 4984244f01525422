import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectationOf, type Expectation } from '../../cli/expectation.js';
import { generateRun } from '../../cli/generator.js';
import { resolveCliSettings } from '../../cli/settings.js';
import { runVerify } from '../../cli/verify.js';
import type { BusinessState } from '../../src/core/index.js';
import { deadLetterEntries, startCliBus, type CliTestBus } from './support.js';

/** A stand-in for GET /api/orders/{id} serving `views`, answering 404 until `readyAt`. */
async function ordersApi(views: Map<string, BusinessState>, readyAt = 0): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const id = decodeURIComponent((req.url ?? '').replace('/api/orders/', ''));
    const view = views.get(id);
    if (!view || Date.now() < readyAt) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...view, parked: [], rejected: [] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Puts the expected dead letters on the dead-letter queues, as the system would. */
async function produceDeadLetters(bus: CliTestBus, expectation: Expectation, skip = 0): Promise<void> {
  const wanted = expectation.deadLetters.slice(skip);
  await deadLetterEntries(
    bus.client,
    wanted.filter((d) => d.queue === 'orders').map((d) => ({ body: Buffer.from('not json'), sessionId: 's', messageId: d.id, reason: d.reason })),
  );
  const sender = bus.client.createSender('ledger');
  const receiver = bus.client.createReceiver('ledger');
  for (const d of wanted.filter((x) => x.queue === 'ledger')) {
    await sender.sendMessages({ messageId: d.id, body: {} });
    const [m] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2_000 });
    await receiver.deadLetterMessage(m!, { deadLetterReason: d.reason, deadLetterErrorDescription: 'bad ledger' });
  }
  await Promise.all([sender.close(), receiver.close()]);
}

describe('convoy verify against the Service Bus emulator', () => {
  const expectation = expectationOf(generateRun({ orders: 3, entries: 4, ledgers: 2, duplicates: 0, conflicts: 1, poison: 4, gaps: 0, seed: 3 }));
  let bus: CliTestBus;
  let server: Server | undefined;
  beforeEach(async () => {
    bus = await startCliBus();
  });
  afterEach(async () => {
    server?.close();
    await bus.close();
  });

  it('waits until the orders appear and reports a match', async () => {
    const views = new Map(expectation.orders.map((o) => [o.orderId, o]));
    const api = await ordersApi(views, Date.now() + 600);
    server = api.server;
    await produceDeadLetters(bus, expectation);
    const settings = resolveCliSettings({ servicebus: bus.emulator.connectionString, http: api.url }, {}, '/nonexistent');
    const report = await runVerify({ expectation, settings, pollMs: 100, timeoutMs: 10_000 });
    expect(report).toMatchObject({ ok: true, outcome: 'matched' });
    expect(report.waitedMs).toBeGreaterThanOrEqual(400);
    expect(report.comparison.deadLetters.byReason).toEqual([
      { reason: 'IdempotencyKeyConflict', expected: 1, found: 1 },
      { reason: 'SchemaValidationFailed', expected: 4, found: 4 },
    ]);
  });

  it('stops once the queues are empty and nothing changes, reporting what differs', async () => {
    const first = expectation.orders[0] as BusinessState;
    const views = new Map(expectation.orders.slice(1).map((o) => [o.orderId, o]));
    views.set(first.orderId, { ...first, total: first.total + 1 });
    const api = await ordersApi(views);
    server = api.server;
    await produceDeadLetters(bus, expectation, 1);
    const settings = resolveCliSettings({ servicebus: bus.emulator.connectionString, http: api.url }, {}, '/nonexistent');
    const report = await runVerify({ expectation, settings, pollMs: 100, quietMs: 500, timeoutMs: 10_000 });
    expect(report).toMatchObject({ ok: false, outcome: 'settled' });
    expect(report.comparison.orders.mismatched).toEqual([{ orderId: first.orderId, differences: [`total: expected ${first.total}, found ${first.total + 1}`] }]);
    expect(report.comparison.deadLetters.missing).toEqual([expectation.deadLetters[0]]);
  });
});
