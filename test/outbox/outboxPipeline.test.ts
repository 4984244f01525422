import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpRequest, InvocationContext, Timer } from '@azure/functions';
import { discardOutbox, listOutbox, retryOutbox } from '@ledger-convoy/cli';
import type { CliSettings } from '@ledger-convoy/cli';
import { startCosmosDBHost, type CosmosDBHost } from '@ledger-convoy/local-host';
import type { RegistrationOf } from '@ledger-convoy/local-host';
import { relayLag } from '../../src/adapters/outboxLag.js';
import {
  ALL_EVENTS_SUBSCRIPTION,
  ORDER_EVENTS_TOPIC,
  foldOrderEvent,
  orderEventKey,
  orderEventSource,
  type BusinessState,
} from '../../src/core/index.js';
import { entryRecordId } from '../../src/core/documents/documentIds.js';
import { OUTBOX_RELAY_LEASE_PREFIX } from '../../src/adapters/changeFeedLease.js';
import { getOrder } from '../../src/functions/getOrder.js';
import { outboxHoldRetry } from '../../src/functions/outboxHoldRetry.js';
import { drainSession, postLedger, runSplitter, startStack, type Stack } from '../integration/support/stack.js';
import { interleave, orderEntries, uid } from '../integration/support/ledgers.js';
import { peekEverything, until } from '../support/serviceBusWaits.js';
import type { OrderCloudEvent } from '../../src/core/outbox/orderCloudEvent.js';
import { setEnv } from './support/eventually.js';
import { startWebhook } from './support/webhookServer.js';

let stack: Stack;
let webhook: Awaited<ReturnType<typeof startWebhook>>;
let host: CosmosDBHost;
let restoreEnv: () => void;
/** The webhook's Standard Webhooks secret (`OUTBOX_WEBHOOK_SECRET`): a receiver verifies every POST with it. */
const WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
/** Orders whose webhook calls fail (500) while they are in here. */
const failing = new Set<string>();

beforeAll(async () => {
  // Every key fails twice at the webhook before it is accepted: the relay retries inside its budget. An order's
  // records share one budget (at most 1.8 s of backoff for three records), so it is well above that, and below
  // the waits' patience for the order that keeps failing to be held.
  webhook = await startWebhook({ failFirst: 2, failWhen: (body) => failing.has(body.orderId) });
  restoreEnv = setEnv({
    OUTBOX_WEBHOOK_URL: webhook.url,
    OUTBOX_WEBHOOK_SECRET: WEBHOOK_SECRET,
    OUTBOX_RETRY_BUDGET: 'PT5S',
    // A hold's first release is due at once: the test ticks the hold timer itself.
    OUTBOX_HOLD_RETRY_FIRST: '1',
    COSMOS_DATABASE: 'convoy',
    COSMOS_CONTAINER: 'orders',
  });
  stack = await startStack();
  host = await startRelayHost();
});

/** The app's own outboxRelay registration, served by the in-process host's Cosmos DB trigger. */
function startRelayHost(): Promise<CosmosDBHost> {
  const relay = stack.app.functions.filter(
    (r): r is RegistrationOf<'cosmosDB'> => r.kind === 'cosmosDB' && r.name === 'outboxRelay',
  );
  return startCosmosDBHost({ functions: relay, settings: process.env, logger: pino({ level: 'silent' }) });
}

afterAll(async () => {
  await host?.close();
  await stack?.close();
  await webhook?.close();
  restoreEnv?.();
});

/** Every `order-events` message of the order on subscription `all`, in session order, read from the broker (peeked). */
async function orderEvents(orderId: string): Promise<ServiceBusReceivedMessage[]> {
  const receiver = await stack.bus.acceptSession(ORDER_EVENTS_TOPIC, ALL_EVENTS_SUBSCRIPTION, orderId);
  try {
    return await peekEverything(receiver);
  } finally {
    await receiver.close();
  }
}

const orderRequest = (orderId: string) => ({ params: { orderId } }) as unknown as HttpRequest;
const invocation = () => ({ invocationId: uid('i'), log() {}, warn() {}, error() {} }) as unknown as InvocationContext;
const traceIdOf = (traceparent: unknown) => String(traceparent).split('-')[1];
const acceptedFor = (orderId: string) =>
  webhook.applied.filter((k) => webhook.appliedBodies.get(k)!.orderId === orderId);
/** The keys of an order's events for the given entries (`messageId`, `Idempotency-Key`): per order, not per entryId. */
const keysFor = (orderId: string, ...entryIds: string[]) =>
  entryIds.map((id) => orderEventKey(orderEventSource(orderId), id));
const keysOf = (orderId: string, last: number) =>
  keysFor(orderId, ...Array.from({ length: last }, (_, i) => `${orderId}-${i + 1}`));
type EventBody = { data: { sequence: number } };
const sequences = (messages: ServiceBusReceivedMessage[]) => messages.map((m) => (m.body as EventBody).data.sequence);

describe('outbox relay: orders change feed → order-events and webhook, on both emulators', () => {
  it('delivers every applied entry once per key, in sequence order per order, in the ledger trace', async () => {
    // Prepare
    const a = uid('o');
    const b = uid('o');
    const entries = interleave(orderEntries(a, [1250, -250]), orderEntries(b, [700]));
    const ledgerId = uid('L');
    await postLedger(stack, JSON.stringify({ ledgerId, entries }));
    const split = await runSplitter(stack);
    const keys = entries.map((e) => keysFor(e.orderId, e.entryId)[0]!);
    // Act: the processor commits; the relay's trigger reads the records from the change feed.
    await drainSession(stack, a);
    await drainSession(stack, b);
    await until(() => keys.every((k) => webhook.applied.includes(k)), 'every key accepted by the webhook');
    const eventsA = await orderEvents(a);
    const eventsB = await orderEvents(b);
    // Assess: webhook — three calls per key (two refused, retried in the budget), byte-identical, each signed.
    const receiver = new Webhook(WEBHOOK_SECRET);
    for (const key of keys) {
      const calls = webhook.calls.filter((c) => c.key === key);
      expect(calls.map((c) => c.status)).toEqual([503, 503, 204]);
      expect(new Set(calls.map((c) => c.raw)).size).toBe(1);
      for (const call of calls) {
        expect(call.headers).toMatchObject({ 'content-type': 'application/cloudevents+json', 'webhook-id': key });
        expect(receiver.verify(call.raw, call.headers)).toEqual(JSON.parse(call.raw));
      }
    }
    expect(() =>
      receiver.verify(webhook.calls[0]!.raw.replace('"sequence":', '"sequence": '), webhook.calls[0]!.headers),
    ).toThrow();
    expect(acceptedFor(a)).toEqual(keysOf(a, 3));
    expect(acceptedFor(b)).toEqual(keysOf(b, 2));
    // order-events: one message per record, per order in sequence order, the CloudEvent committed with the entry.
    expect(sequences(eventsA)).toEqual([1, 2, 3]);
    expect(sequences(eventsB)).toEqual([1, 2]);
    const last = eventsA[2]!;
    expect(last).toMatchObject({
      messageId: keysFor(a, `${a}-3`)[0],
      sessionId: a,
      correlationId: ledgerId,
      contentType: 'application/cloudevents+json',
      subject: 'convoy.order.transaction-added',
    });
    // The subject is the CloudEvents type, what a subscription filters on (sys.Label).
    expect(eventsA.map((m) => m.subject)).toEqual(eventsA.map((m) => (m.body as OrderCloudEvent).type));
    expect(eventsA.map((m) => m.subject)).toEqual([
      'convoy.order.created',
      'convoy.order.transaction-added',
      'convoy.order.transaction-added',
    ]);
    expect(last.applicationProperties).toMatchObject({ sequence: 3, type: 'TransactionAdded' });
    const [record3] = (
      await stack.container.items
        .query(
          {
            query: 'SELECT * FROM c WHERE c.id = @id',
            parameters: [{ name: '@id', value: entryRecordId('order-processor', `${a}-3`) }],
          },
          { partitionKey: a },
        )
        .fetchAll()
    ).resources;
    expect(last.body).toEqual({
      specversion: '1.0',
      id: `${a}-3`,
      source: `/orders/${a}`,
      type: 'convoy.order.transaction-added',
      time: record3.committedAt,
      datacontenttype: 'application/json',
      dataschema: 'urn:ledger-convoy:order-event-data:v1',
      traceparent: record3.traceparent,
      data: {
        orderId: a,
        sequence: 3,
        entryId: `${a}-3`,
        type: 'TransactionAdded',
        change: { transactionId: 't-2', amount: -250 },
        order: {
          status: 'open',
          customerId: 'c-1',
          currency: 'EUR',
          lastSequence: 3,
          total: 1000,
          transactionCount: 2,
        },
      },
    });
    // Folding the changes in sequence order holds the whole order, as the GET view shows it.
    const folded = eventsA
      .map((m) => (m.body as OrderCloudEvent).data)
      .sort((x, y) => x.sequence - y.sequence)
      .reduce<BusinessState | undefined>(foldOrderEvent, undefined);
    expect(folded).toEqual({
      orderId: a,
      status: 'open',
      customerId: 'c-1',
      currency: 'EUR',
      lastSequence: 3,
      total: 1000,
      transactions: [
        { transactionId: 't-1', amount: 1250 },
        { transactionId: 't-2', amount: -250 },
      ],
    });
    // The webhook got the same event, byte for byte what the record stores.
    expect(webhook.calls.find((c) => c.key === keysFor(a, `${a}-3`)[0])?.raw).toBe(JSON.stringify(record3.event));
    const ledgerTrace = traceIdOf(split.message.applicationProperties?.traceparent);
    expect(traceIdOf(last.applicationProperties?.traceparent)).toBe(ledgerTrace);
    expect(traceIdOf(record3.traceparent)).toBe(ledgerTrace);
    expect(last.applicationProperties?.['Diagnostic-Id']).toBe(last.applicationProperties?.traceparent);
    expect(traceIdOf(webhook.calls.find((c) => c.key === keysFor(a, `${a}-3`)[0])?.traceparent)).toBe(ledgerTrace);
    // The stored events are the applied entries' records as the processor wrote them: committedAt, kept for good.
    const { resources: records } = await stack.container.items
      .query({
        query:
          "SELECT * FROM c WHERE c.docType = 'entry' AND c.status = 'applied' AND (c.orderId = @a OR c.orderId = @b)",
        parameters: [
          { name: '@a', value: a },
          { name: '@b', value: b },
        ],
      })
      .fetchAll();
    expect(records).toHaveLength(keys.length);
    for (const r of records) expect(r).toMatchObject({ committedAt: expect.any(String), key: expect.any(String) });
    expect(records.some((r) => 'ttl' in r)).toBe(false);
  });

  it('delivers every event of two orders that share entryIds, on order-events and on the webhook', async () => {
    // Prepare: the contract makes an entryId unique per order only; both orders use the same three.
    webhook.state.failFirst = 0;
    const [x, y] = [uid('o'), uid('o')];
    const shared = ['shared-1', 'shared-2', 'shared-3'];
    const entriesOf = (orderId: string) => orderEntries(orderId, [5, 7]).map((e, i) => ({ ...e, entryId: shared[i]! }));
    // (A ledger may not repeat an entryId, so each order comes in a ledger of its own.)
    for (const orderId of [x, y]) {
      await postLedger(stack, JSON.stringify({ ledgerId: uid('L'), entries: entriesOf(orderId) }));
      await runSplitter(stack);
    }
    // Act
    await drainSession(stack, x);
    await drainSession(stack, y);
    await until(
      () => acceptedFor(x).length === 3 && acceptedFor(y).length === 3,
      'both orders accepted by the webhook',
    );
    // Assess: six events, none taken for a copy of another — by the broker's duplicate detection or the webhook.
    expect(acceptedFor(x)).toEqual(keysFor(x, ...shared));
    expect(acceptedFor(y)).toEqual(keysFor(y, ...shared));
    expect(sequences(await orderEvents(x))).toEqual([1, 2, 3]);
    expect(sequences(await orderEvents(y))).toEqual([1, 2, 3]);
  });

  it('holds a lone order whose webhook keeps failing without holding its feed range, and the hold timer releases it once the webhook is back', async () => {
    // Prepare: c's webhook calls fail beyond the retry budget; c is alone in its change batches.
    webhook.state.failFirst = 0;
    const c = uid('o');
    const d = uid('o');
    failing.add(c);
    const { holds } = stack.app.context().outbox;
    await postLedger(stack, JSON.stringify({ ledgerId: uid('L'), entries: orderEntries(c, [10, 20]) }));
    await runSplitter(stack);
    // Act: c's records go to order-events and are held for the webhook; d, after it in the same feed, goes on.
    await drainSession(stack, c);
    await until(async () => (await holds.read(c))?.doc.heldThrough === 3, "c's three records held");
    await postLedger(stack, JSON.stringify({ ledgerId: uid('L'), entries: orderEntries(d, [30]) }));
    await runSplitter(stack);
    await drainSession(stack, d);
    await until(() => acceptedFor(d).length === 2, 'd delivered behind the held c');
    const marker = (await holds.read(c))!.doc;
    const { resources: kinds } = await stack.container.items
      .query<string>('SELECT DISTINCT VALUE c.docType FROM c', { partitionKey: c })
      .fetchAll();
    const view = await getOrder(stack.app.context(), orderRequest(c));
    const eventsC = await orderEvents(c);
    // The webhook is back; only the every-minute timer runs.
    failing.delete(c);
    const tick = await outboxHoldRetry(stack.app.context(), {} as Timer, invocation());
    // Assess: one small marker, a cursor into c's stored events, no copy of them; order-events had every record of c.
    expect(marker).toMatchObject({
      version: 3,
      orderId: c,
      targets: ['webhook'],
      deliveredThrough: { webhook: 0 },
      heldThrough: 3,
      attempts: 0,
    });
    expect(kinds.sort()).toEqual(['entry', 'order', 'outbox-hold', 'transaction']);
    expect((view.jsonBody as { hold?: unknown }).hold).toEqual({
      targets: ['webhook'],
      since: marker.since,
      records: 3,
      nextAttempt: marker.nextAttempt,
    });
    expect(sequences(eventsC)).toEqual([1, 2, 3]);
    expect(tick).toMatchObject({ released: 1 });
    expect(acceptedFor(c)).toEqual(keysOf(c, 3));
    expect(await holds.read(c)).toBeUndefined();
    expect(
      ((await getOrder(stack.app.context(), orderRequest(c))).jsonBody as { hold?: unknown }).hold,
    ).toBeUndefined();
    // The relay checkpoints past everything (its own hold writes included): no lag is left.
    await until(
      async () =>
        (
          await relayLag(
            stack.container,
            stack.container.database.container('leases'),
            OUTBOX_RELAY_LEASE_PREFIX,
            Date.now(),
          )
        ).every((l) => l.lagMs === 0),
      'the relay caught up',
    );
    expect(sequences(await orderEvents(c))).toEqual([1, 2, 3]);
  });

  it('lets an operator release a hold now (convoy outbox retry) or discard it with a reason (convoy outbox discard)', async () => {
    const e = uid('o');
    const f = uid('o');
    failing.add(e);
    failing.add(f);
    const { holds } = stack.app.context().outbox;
    await postLedger(
      stack,
      JSON.stringify({ ledgerId: uid('L'), entries: interleave(orderEntries(e, [1]), orderEntries(f, [2])) }),
    );
    await runSplitter(stack);
    await drainSession(stack, e);
    await drainSession(stack, f);
    const heldThrough = async (o: string) => (await holds.read(o))?.doc.heldThrough;
    await until(async () => (await heldThrough(e)) === 2 && (await heldThrough(f)) === 2, 'e and f held');
    failing.delete(e);
    const settings: CliSettings = {
      app: { ...process.env },
      httpBaseUrl: '',
      functionKey: undefined,
      embeddedDefaults: [],
    };
    const listed = await listOutbox(stack.container, { orderId: e });
    const released = await retryOutbox(settings, stack.container, e);
    const discarded = await discardOutbox(
      stack.container,
      f,
      'the receiver was rebuilt from the order-events queue',
      'test',
    );
    expect(listed.holds).toEqual([
      expect.objectContaining({ orderId: e, targets: ['webhook'], records: 2, heldThrough: 2, attempts: 0 }),
    ]);
    expect(released).toMatchObject({ outcome: 'released', delivered: { 'order-events': 0, webhook: 2 } });
    expect(acceptedFor(e)).toEqual(keysOf(e, 2));
    expect(discarded).toMatchObject({ outcome: 'discarded', records: 2 });
    expect(acceptedFor(f)).toEqual([]);
    const { resources: audits } = await stack.container.items
      .query({ query: "SELECT * FROM c WHERE c.docType = 'outbox-discard'" }, { partitionKey: f })
      .fetchAll();
    expect(audits).toEqual([
      expect.objectContaining({
        reason: 'the receiver was rebuilt from the order-events queue',
        by: 'test',
        undelivered: [{ target: 'webhook', after: 0, through: 2 }],
      }),
    ]);
    expect([await holds.read(e), await holds.read(f)]).toEqual([undefined, undefined]);
    await expect(retryOutbox(settings, stack.container, f)).rejects.toMatchObject({ code: 'NotFound' });
  });
});
