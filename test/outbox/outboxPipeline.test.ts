import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryOutbox } from '../../cli/commands/outboxRetry.js';
import type { CliSettings } from '../../cli/settings.js';
import { startCosmosDBHost, type CosmosDBHost } from '../../local/cosmos/cosmosDBHost.js';
import type { RegistrationOf } from '../../local/registrations.js';
import { relayLag } from '../../src/adapters/outboxLag.js';
import { appContext } from '../../src/functions/appContext.js';
import { OUTBOX_RELAY_LEASE_PREFIX } from '../../src/adapters/changeFeedLease.js';
import { outboxRuntime } from '../../src/functions/outboxRuntime.js';
import { registeredFunctions } from '../../src/functions/register.js';
import { drainSession, postLedger, runSplitter, startStack, type Stack } from '../integration/support/stack.js';
import { interleave, orderEntries, uid } from '../integration/support/ledgers.js';
import { peekEverything, until } from '../support/serviceBusWaits.js';
import { setEnv } from './support/eventually.js';
import { startWebhook } from './support/webhookServer.js';

let stack: Stack;
let webhook: Awaited<ReturnType<typeof startWebhook>>;
let host: CosmosDBHost;
let restoreEnv: () => void;
/** Orders whose webhook calls fail (500) while they are in here. */
const failing = new Set<string>();

beforeAll(async () => {
  // Every key fails twice at the webhook before it is accepted: the relay retries inside its budget. An order's
  // records share one budget (at most 1.8 s of backoff for three records), so it is well above that, and below
  // the waits' patience for the order that keeps failing to be held.
  webhook = await startWebhook({ failFirst: 2, failWhen: (body) => failing.has(body.orderId) });
  restoreEnv = setEnv({ OUTBOX_WEBHOOK_URL: webhook.url, OUTBOX_RETRY_BUDGET: 'PT5S', COSMOS_DATABASE: 'convoy', COSMOS_CONTAINER: 'orders' });
  stack = await startStack();
  host = await startRelayHost();
});

/** The app's own outboxRelay registration, served by the in-process host's Cosmos DB trigger. */
function startRelayHost(): Promise<CosmosDBHost> {
  const relay = registeredFunctions().filter((r): r is RegistrationOf<'cosmosDB'> => r.kind === 'cosmosDB' && r.name === 'outboxRelay');
  return startCosmosDBHost({ functions: relay, settings: process.env, logger: pino({ level: 'silent' }) });
}

afterAll(async () => {
  await host?.close();
  await stack?.close();
  await webhook?.close();
  restoreEnv?.();
});

/** Every `order-events` message of the order, in session order, read from the broker (peeked). */
async function orderEvents(orderId: string): Promise<ServiceBusReceivedMessage[]> {
  const receiver = await stack.bus.acceptSession('order-events', orderId);
  try {
    return await peekEverything(receiver);
  } finally {
    await receiver.close();
  }
}

const traceIdOf = (traceparent: unknown) => String(traceparent).split('-')[1];
const acceptedFor = (orderId: string) => webhook.applied.filter((k) => webhook.appliedBodies.get(k)!.orderId === orderId);

describe('outbox relay: orders change feed → order-events and webhook, on both emulators', () => {
  it('delivers every applied entry once per key, in sequence order per order, in the ledger trace', async () => {
    // Prepare
    const a = uid('o');
    const b = uid('o');
    const entries = interleave(orderEntries(a, [1250, -250]), orderEntries(b, [700]));
    const ledgerId = uid('L');
    await postLedger(stack, JSON.stringify({ ledgerId, entries }));
    const split = await runSplitter(stack);
    const keys = entries.map((e) => `outbox:${e.entryId}`);
    // Act: the processor commits; the relay's trigger reads the records from the change feed.
    await drainSession(stack, a);
    await drainSession(stack, b);
    await until(() => keys.every((k) => webhook.applied.includes(k)), 'every key accepted by the webhook');
    const eventsA = await orderEvents(a);
    const eventsB = await orderEvents(b);
    // Assess: webhook — three calls per key (two refused, retried in the budget), one body, in sequence order.
    for (const key of keys) {
      const calls = webhook.calls.filter((c) => c.key === key);
      expect(calls.map((c) => c.status)).toEqual([503, 503, 204]);
      expect(new Set(calls.map((c) => JSON.stringify(c.body))).size).toBe(1);
    }
    expect(acceptedFor(a)).toEqual([`outbox:${a}-1`, `outbox:${a}-2`, `outbox:${a}-3`]);
    expect(acceptedFor(b)).toEqual([`outbox:${b}-1`, `outbox:${b}-2`]);
    // order-events: one message per record, per order in sequence order, with the state after the entry.
    expect(eventsA.map((m) => m.body.sequence)).toEqual([1, 2, 3]);
    expect(eventsB.map((m) => m.body.sequence)).toEqual([1, 2]);
    const last = eventsA[2]!;
    expect(last).toMatchObject({ messageId: `outbox:${a}-3`, sessionId: a, correlationId: ledgerId, contentType: 'application/json' });
    expect(last.applicationProperties).toMatchObject({ sequence: 3, type: 'TransactionAdded' });
    expect(last.body).toEqual({
      orderId: a,
      sequence: 3,
      entryId: `${a}-3`,
      order: { orderId: a, status: 'open', customerId: 'c-1', currency: 'EUR', lastSequence: 3, total: 1000, transactions: [{ transactionId: 't-1', amount: 1250 }, { transactionId: 't-2', amount: -250 }] },
    });
    const ledgerTrace = traceIdOf(split.message.applicationProperties?.traceparent);
    expect(traceIdOf(last.applicationProperties?.traceparent)).toBe(ledgerTrace);
    expect(last.applicationProperties?.['Diagnostic-Id']).toBe(last.applicationProperties?.traceparent);
    expect(traceIdOf(webhook.calls.find((c) => c.key === `outbox:${a}-3`)?.traceparent)).toBe(ledgerTrace);
    // The records are as the processor wrote them: immutable, with committedAt and the OUTBOX_TTL.
    const { resources: records } = await stack.container.items
      .query({ query: "SELECT * FROM c WHERE c.docType = 'outbox' AND (c.orderId = @a OR c.orderId = @b)", parameters: [{ name: '@a', value: a }, { name: '@b', value: b }] })
      .fetchAll();
    expect(records).toHaveLength(keys.length);
    for (const r of records) expect(r).toMatchObject({ ttl: 604_800, committedAt: expect.any(String) });
    expect(records.some((r) => 'status' in r)).toBe(false);
  });

  it('holds an order whose webhook keeps failing without holding the others, and the release delivers the held records in order', async () => {
    // Prepare: c's webhook calls fail beyond the retry budget; d's succeed.
    webhook.state.failFirst = 0;
    const c = uid('o');
    const d = uid('o');
    failing.add(c);
    const entries = interleave(orderEntries(c, [10, 20]), orderEntries(d, [30]));
    await postLedger(stack, JSON.stringify({ ledgerId: uid('L'), entries }));
    await runSplitter(stack);
    const holds = outboxRuntime(appContext()).holds;
    // Act: both orders committed before the relay reads on (one batch): a batch of c alone would fail every order
    // in it, which the relay treats as a target outage and retries whole, as docs/architecture.md says.
    await host.close();
    await drainSession(stack, c);
    await drainSession(stack, d);
    // The relay is behind: the lag of a lease is the age of the oldest outbox record past its checkpoint.
    const { resources: [oldest] } = await stack.container.items
      .query<{ committedAt: string }>({ query: "SELECT c.committedAt FROM c WHERE c.docType = 'outbox' AND c.orderId = @c AND c.sequence = 1", parameters: [{ name: '@c', value: c }] })
      .fetchAll();
    const at = Date.parse(oldest!.committedAt) + 5_000;
    const behind = await relayLag(stack.container, stack.container.database.container('leases'), OUTBOX_RELAY_LEASE_PREFIX, at);
    host = await startRelayHost();
    await until(async () => acceptedFor(d).length === 2 && (await holds.read(c))?.doc.records.length === 3, "d delivered and c's three records held");
    const held = (await holds.read(c))!.doc;
    const eventsC = await orderEvents(c);
    failing.delete(c);
    const settings: CliSettings = { app: { ...process.env }, httpBaseUrl: '', functionKey: undefined, embeddedDefaults: [] };
    const report = await retryOutbox(settings, stack.container, c);
    // Assess: order-events had every record of c; only the webhook was owed, and it now has them in order.
    expect(held).toMatchObject({ orderId: c, failedTargets: ['webhook'] });
    expect(held.records.map((r) => [r.sequence, r.pendingTargets])).toEqual([
      [1, ['webhook']],
      [2, ['webhook']],
      [3, ['webhook']],
    ]);
    expect(eventsC.map((m) => m.body.sequence)).toEqual([1, 2, 3]);
    expect(report).toMatchObject({ released: true, delivered: { 'order-events': 0, webhook: 3 } });
    expect(acceptedFor(c)).toEqual([`outbox:${c}-1`, `outbox:${c}-2`, `outbox:${c}-3`]);
    expect(await holds.read(c)).toBeUndefined();
    expect(behind.map((l) => l.lagMs)).toEqual([5_000]);
    // Once the relay has checkpointed past everything (its own hold writes included), no lag is left.
    await until(async () => (await relayLag(stack.container, stack.container.database.container('leases'), OUTBOX_RELAY_LEASE_PREFIX, at)).every((l) => l.lagMs === 0), 'the relay caught up');
    expect((await orderEvents(c)).map((m) => m.body.sequence)).toEqual([1, 2, 3]);
  });
});
