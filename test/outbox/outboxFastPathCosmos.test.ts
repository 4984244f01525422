import type { ServiceBusSender } from '@azure/service-bus';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryOutbox } from '../../cli/commands/outboxRetry.js';
import { CosmosOutboxStore } from '../../src/adapters/outboxCosmosStore.js';
import { ServiceBusOrderEventTarget } from '../../src/adapters/outboxServiceBusTarget.js';
import { OutboxDispatcher } from '../../src/core/outbox/outboxDispatcher.js';
import type { MessageSettlement } from '../../src/core/ports/messageSettlement.js';
import { silentTelemetry, type ProcessResult } from '../../src/core/index.js';
import { appContext } from '../../src/functions/appContext.js';
import { afterOrderProcessed, outboxRuntime } from '../../src/functions/outboxDispatcher.js';
import { orderEntries, uid, type TestEntry } from '../integration/support/ledgers.js';
import { startStack, type Stack } from '../integration/support/stack.js';
import { PATIENCE_MS, peekEverything } from '../support/serviceBusWaits.js';
import { setEnv } from './support/eventually.js';
import { startWebhook } from './support/webhookServer.js';

let stack: Stack;
let webhook: Awaited<ReturnType<typeof startWebhook>>;
let restoreEnv: () => void;
let sender: ServiceBusSender;

beforeAll(async () => {
  stack = await startStack();
  webhook = await startWebhook();
  // One attempt per record, so a refused one is `failed` at once and holds its order.
  // The webhook's timeout only guards against a hang: a local call that outlasted it would fail its only attempt.
  restoreEnv = setEnv({ OUTBOX_WEBHOOK_URL: webhook.url, OUTBOX_MAX_ATTEMPTS: '1', OUTBOX_WEBHOOK_TIMEOUT: String(PATIENCE_MS) });
  sender = stack.bus.createSender('order-events');
});

afterAll(async () => {
  await outboxRuntime(appContext()).dispatcher.idle();
  await sender?.close();
  await stack?.close();
  await webhook?.close();
  restoreEnv?.();
});

const settlement: MessageSettlement = { complete: async () => {}, abandon: async () => {}, deadLetter: async () => {} };

/** Applies one entry with the app's processor and its session cache, as the `orders` trigger would. */
function apply(entry: TestEntry): Promise<ProcessResult> {
  const app = appContext();
  const message = {
    body: entry,
    messageId: entry.entryId,
    sessionId: entry.orderId,
    correlationId: 'L-fast',
    applicationProperties: { sequence: entry.sequence, type: entry.type },
    deliveryCount: 1,
  };
  return app.processor().process(message, { settlement, cache: app.orderCache });
}

/** Applies one entry and lets the app's outbox fast path finish with it. */
async function applyAndDispatch(entry: TestEntry): Promise<ProcessResult> {
  const result = await apply(entry);
  afterOrderProcessed(appContext(), result);
  await outboxRuntime(appContext()).dispatcher.idle();
  return result;
}

/** The sequences of every `order-events` message of the order, in session order, read from the broker (peeked). */
async function orderEventSequences(orderId: string): Promise<number[]> {
  const receiver = await stack.bus.acceptSession('order-events', orderId);
  try {
    return (await peekEverything(receiver)).map((message) => (message.body as { sequence: number }).sequence);
  } finally {
    await receiver.close();
  }
}

const webhookSequences = (orderId: string) => webhook.applied.filter((key) => webhook.appliedBodies.get(key)!.orderId === orderId).map((key) => webhook.appliedBodies.get(key)!.sequence);

describe('outbox fast path on the Cosmos DB emulator (request counters)', () => {
  it('costs one batch and two replaces per applied entry in the steady state of an order, and keeps its order', async () => {
    // Prepare
    const orderId = uid('o');
    const [first, ...rest] = orderEntries(orderId, [10, 20, 30, 40, 50]);
    stack.cosmos.resetCounters();
    await applyAndDispatch(first!);
    const firstCounts = stack.cosmos.counters();
    stack.cosmos.resetCounters();
    // Act
    for (const entry of rest) await applyAndDispatch(entry);
    const counts = stack.cosmos.counters();
    // Assess: no query, no query plan, no read — for the first record either (nothing can be below sequence 1).
    expect(counts).toEqual({ total: 3 * rest.length, batch: rest.length, replace: 2 * rest.length });
    expect(firstCounts).toMatchObject({ batch: 1, replace: 2 });
    expect(firstCounts).not.toHaveProperty('query');
    expect(firstCounts).not.toHaveProperty('queryPlan');
    expect(await orderEventSequences(orderId)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(webhookSequences(orderId)).toEqual([1, 2, 3, 4, 5, 6]);
    const records = await new CosmosOutboxStore(stack.container).list({ orderId });
    expect(records.map((r) => [r.sequence, r.status, r.attempts])).toEqual([1, 2, 3, 4, 5, 6].map((s) => [s, 'completed', 1]));
  });

  it('lets a dispatcher with no memory of the order read it once, deliver in order, then go on without reading', async () => {
    // Prepare: records 1–3 were committed by an instance that died before its fast path.
    const orderId = uid('o');
    const entries = orderEntries(orderId, [1, 2, 3, 4]);
    for (const entry of entries.slice(0, 3)) await apply(entry);
    const cold = new OutboxDispatcher({
      store: new CosmosOutboxStore(stack.container),
      targets: [new ServiceBusOrderEventTarget(sender)],
      telemetry: silentTelemetry,
      options: { leaseMs: 30_000, maxAttempts: 3, backoffBaseMs: 20, backoffMaxMs: 50, completedTtlSeconds: 60 },
    });
    // Act
    const fourth = await apply(entries[3]!);
    stack.cosmos.resetCounters();
    const coldReport = await cold.dispatchOrder(orderId, fourth.outbox);
    const coldCounts = stack.cosmos.counters();
    const fifth = await apply(entries[4]!);
    stack.cosmos.resetCounters();
    const warmReport = await cold.dispatchOrder(orderId, fifth.outbox);
    const warmCounts = stack.cosmos.counters();
    // Assess
    expect(fourth.outbox?.map((s) => s.doc.sequence)).toEqual([4]);
    expect(coldReport.delivered).toEqual([1, 2, 3, 4].map((s) => `outbox:${orderId}-${s}`));
    expect(coldCounts).toEqual({ total: 10, query: 1, queryPlan: 1, replace: 8 });
    expect(warmReport.delivered).toEqual([`outbox:${orderId}-5`]);
    expect(warmCounts).toEqual({ total: 2, replace: 2 });
    expect(await orderEventSequences(orderId)).toEqual([1, 2, 3, 4, 5]);
  });

  it('does not let an operator retry of a failed record be skipped: later records wait for it, then follow it', async () => {
    // Prepare: the webhook refuses record 2, which is marked failed after its only attempt.
    const orderId = uid('o');
    const entries = orderEntries(orderId, [1, 2, 3]);
    webhook.state.failWhen = (body) => body.orderId === orderId && body.sequence === 2;
    await applyAndDispatch(entries[0]!);
    await applyAndDispatch(entries[1]!);
    await applyAndDispatch(entries[2]!);
    const store = new CosmosOutboxStore(stack.container);
    const whileFailed = (await store.list({ orderId })).map((r) => [r.sequence, r.status]);
    // Act: the operator retries it; the next entry's fast path must deliver 2 and 3 before 4.
    webhook.state.failWhen = undefined;
    const retry = await retryOutbox(store, { orderId });
    stack.cosmos.resetCounters();
    await applyAndDispatch(entries[3]!);
    const counts = stack.cosmos.counters();
    // Assess
    expect(whileFailed).toEqual([[1, 'completed'], [2, 'failed'], [3, 'pending']]);
    expect(retry.retried).toEqual([`outbox:${orderId}-2`]);
    expect(counts).toMatchObject({ batch: 1, query: 1, replace: 6 });
    expect(webhookSequences(orderId)).toEqual([1, 2, 3, 4]);
    // Service Bus took record 2 in its failed attempt (the webhook refused it after), so its order holds too.
    expect(await orderEventSequences(orderId)).toEqual([1, 2, 3, 4]);
    expect((await store.list({ orderId })).map((r) => r.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
  });
});
