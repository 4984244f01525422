import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectationOf, type Expectation } from '../src/expectation.js';
import { generateRun } from '../src/generator.js';
import { resolveCliSettings } from '../src/settings.js';
import { runVerify } from '../src/verify.js';
import { type BusinessState } from 'ledger-convoy/core';
import { receiveExactly } from '../../../test/support/serviceBusWaits.js';
import { deadLetterEntries, startCliBus, type CliTestBus } from './support.js';

/** A stand-in for GET /api/orders/{id} serving `views`; with `held`, it answers 404 for every order until `release()`. */
async function ordersApi(views: Map<string, BusinessState>, held = false) {
  let released = !held;
  // The statuses served per order, so a test can tell that verify saw an order missing and looked again.
  const served = new Map<string, number[]>();
  let seenAllMissing!: () => void;
  const allMissingSeen = new Promise<void>((resolve) => (seenAllMissing = resolve));
  const server = createServer((req, res) => {
    const id = decodeURIComponent((req.url ?? '').replace('/api/orders/', ''));
    const view = views.get(id);
    const status = view && released ? 200 : 404;
    served.set(id, [...(served.get(id) ?? []), status]);
    if ([...views.keys()].every((orderId) => served.get(orderId)?.includes(404))) seenAllMissing();
    if (status === 404) return void res.writeHead(404).end();
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ ...view, parked: [], rejected: [] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    served,
    /** Resolves once verify has asked for every order and been told it is not there (yet). */
    allMissingSeen,
    release: () => void (released = true),
  };
}

/** Puts the expected dead letters on the dead-letter queues, as the system would. */
async function produceDeadLetters(bus: CliTestBus, expectation: Expectation, skip = 0): Promise<void> {
  const wanted = expectation.deadLetters.slice(skip);
  await deadLetterEntries(
    bus.client,
    wanted
      .filter((d) => d.queue === 'orders')
      .map((d) => ({ body: Buffer.from('not json'), sessionId: 's', messageId: d.id, reason: d.reason })),
  );
  const sender = bus.client.createSender('ledger');
  const receiver = bus.client.createReceiver('ledger');
  for (const d of wanted.filter((x) => x.queue === 'ledger')) {
    await sender.sendMessages({ messageId: d.id, body: {} });
    const [m] = await receiveExactly(receiver, 1, `ledger ${d.id}`);
    await receiver.deadLetterMessage(m!, { deadLetterReason: d.reason, deadLetterErrorDescription: 'bad ledger' });
  }
  await Promise.all([sender.close(), receiver.close()]);
}

describe('convoy verify against the Service Bus emulator', () => {
  const expectation = expectationOf(
    generateRun({ orders: 3, entries: 4, ledgers: 2, duplicates: 0, conflicts: 1, poison: 4, gaps: 0, seed: 3 }),
  );
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
    // Prepare: the dead letters are in place; the orders stay missing until verify has looked for each of them.
    const views = new Map(expectation.orders.map((o) => [o.orderId, o]));
    const api = await ordersApi(views, true);
    server = api.server;
    await produceDeadLetters(bus, expectation);
    const settings = resolveCliSettings(
      { servicebus: bus.emulator.connectionString, http: api.url },
      {},
      '/nonexistent',
    );
    // Act: the orders appear only after verify saw every one of them missing, however long that took.
    const verifying = runVerify({ expectation, settings, pollMs: 100, timeoutMs: 20_000 });
    await Promise.race([api.allMissingSeen, verifying]);
    api.release();
    const report = await verifying;
    // Assess: a match, found by looking again after each order was missing.
    expect(report).toMatchObject({ ok: true, outcome: 'matched' });
    for (const { orderId } of expectation.orders) {
      const statuses = api.served.get(orderId) ?? [];
      expect(statuses[0], orderId).toBe(404);
      expect(statuses.at(-1), orderId).toBe(200);
    }
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
    const settings = resolveCliSettings(
      { servicebus: bus.emulator.connectionString, http: api.url },
      {},
      '/nonexistent',
    );
    // The quiet spell is what ends it; the timeout only guards against a hang, far above any machine's pace.
    const report = await runVerify({ expectation, settings, pollMs: 100, quietMs: 500, timeoutMs: 25_000 });
    expect(report).toMatchObject({ ok: false, outcome: 'settled' });
    expect(report.comparison.orders.mismatched).toEqual([
      { orderId: first.orderId, differences: [`total: expected ${first.total}, found ${first.total + 1}`] },
    ]);
    expect(report.comparison.deadLetters.missing).toEqual([expectation.deadLetters[0]]);
  });
});
