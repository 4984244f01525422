import type { ServiceBusSender } from '@azure/service-bus';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboxCommand, retryOutbox } from '../../cli/commands/outboxRetry.js';
import { CosmosOutboxStore } from '../../src/adapters/outboxCosmosStore.js';
import { ServiceBusOrderEventTarget } from '../../src/adapters/outboxServiceBusTarget.js';
import { WebhookOrderEventTarget } from '../../src/adapters/outboxWebhookTarget.js';
import { orderEventMessage } from '../../src/core/outbox/orderEvent.js';
import { claimOutboxRecord } from '../../src/core/outbox/outboxDispatch.js';
import { OutboxDispatcher } from '../../src/core/outbox/outboxDispatcher.js';
import type { Telemetry } from '../../src/core/ports/telemetry.js';
import { startStack, type Stack } from '../integration/support/stack.js';
import { uid } from '../integration/support/ledgers.js';
import { pendingRecord } from './support/records.js';
import { startWebhook } from './support/webhookServer.js';
import { ManualClock, RecordingTelemetry } from '../../src/core/testing/index.js';
import { PATIENCE_MS, peekEverything, receiveExactly } from '../support/serviceBusWaits.js';

let stack: Stack;
let webhook: Awaited<ReturnType<typeof startWebhook>>;
let sender: ServiceBusSender;
let store: CosmosOutboxStore;

// Leases and backoffs run on the dispatcher's clock, a manual one moved by the tests. The lease also bounds each
// delivery on real time (80 % of it), so it is kept far above what any machine needs for two local deliveries.
const options = { leaseMs: 60_000, maxAttempts: 2, backoffBaseMs: 10, backoffMaxMs: 20, completedTtlSeconds: 600 };

beforeAll(async () => {
  stack = await startStack();
  webhook = await startWebhook();
  sender = stack.bus.createSender('order-events');
  store = new CosmosOutboxStore(stack.container);
});

afterAll(async () => {
  await sender?.close();
  await stack?.close();
  await webhook?.close();
});

function dispatcher(clock: ManualClock, telemetry = new RecordingTelemetry()) {
  const targets = [new ServiceBusOrderEventTarget(sender), new WebhookOrderEventTarget({ url: webhook.url, timeoutMs: PATIENCE_MS })];
  return { telemetry, dispatcher: new OutboxDispatcher({ store, targets, telemetry: telemetry as unknown as Telemetry, options, clock }) };
}

async function writeRecords(orderId: string, sequences: number[]): Promise<void> {
  for (const s of sequences) await stack.container.items.create(pendingRecord(orderId, s));
}

const keysOf = (orderId: string) => webhook.calls.filter((c) => c.body.orderId === orderId).map((c) => c.key);

describe('outbox leases and failures on the Cosmos DB emulator', () => {
  it('lets exactly one of two dispatchers claim a record (the replace is conditional on its ETag)', async () => {
    // Prepare
    const orderId = uid('o');
    await writeRecords(orderId, [1]);
    const [stored] = await store.openRecords(orderId);
    const claimed = claimOutboxRecord(stored!.doc, { leaseMs: 60_000, nowMs: Date.now() })!;
    // Act
    const results = await Promise.all([store.replace(claimed, stored!.etag), store.replace({ ...claimed, attempts: 7 }, stored!.etag)]);
    // Assess
    expect(results.filter((etag) => etag !== undefined)).toHaveLength(1);
  });

  it('reclaims a record whose dispatcher died between claim and completion, re-delivering it with the same key', async () => {
    // Prepare: dispatcher A claims record 1 and delivers it to the webhook, then dies before completing it.
    const orderId = uid('o');
    const clock = new ManualClock(Date.now());
    await writeRecords(orderId, [1, 2]);
    const [stored] = await store.openRecords(orderId);
    const claimed = claimOutboxRecord(stored!.doc, { leaseMs: options.leaseMs, nowMs: clock.now() })!;
    expect(await store.replace(claimed, stored!.etag)).toBeDefined();
    await new WebhookOrderEventTarget({ url: webhook.url }).deliver({ ...orderEventMessage(claimed), traceparent: undefined }, AbortSignal.timeout(PATIENCE_MS));
    const b = dispatcher(clock);
    // Act: B looks while A's lease runs, and again once it has run out.
    const whileLeased = await b.dispatcher.dispatchOrder(orderId);
    clock.advance(options.leaseMs + 50);
    const afterLease = await b.dispatcher.dispatchOrder(orderId);
    // Assess
    expect(whileLeased).toMatchObject({ delivered: [], failed: [] });
    expect(afterLease.delivered).toEqual([`outbox:${orderId}-1`, `outbox:${orderId}-2`]);
    expect(keysOf(orderId)).toEqual([`outbox:${orderId}-1`, `outbox:${orderId}-1`, `outbox:${orderId}-2`]);
    expect(webhook.applied.filter((k) => k.startsWith(`outbox:${orderId}-`))).toEqual([`outbox:${orderId}-1`, `outbox:${orderId}-2`]);
    const [done] = await store.list({ orderId, status: 'completed' });
    expect(done).toMatchObject({ id: `outbox:${orderId}-1`, attempts: 2, ttl: 600 });
  });

  it('marks a record failed after its attempts, raises OutboxFailed, holds the order, and an operator retry unblocks it', async () => {
    // Prepare
    const orderId = uid('o');
    await writeRecords(orderId, [1, 2, 3]);
    webhook.state.failWhen = (body) => body.orderId === orderId && body.sequence === 1;
    const clock = new ManualClock(Date.now());
    const { dispatcher: d, telemetry } = dispatcher(clock);
    // Act: two attempts (the backoff is at most 20 ms, passed on the clock between passes), then more passes that
    // must not get past record 1.
    for (let i = 0; i < 4; i++) {
      await d.dispatchOrder(orderId);
      clock.advance(30);
    }
    const failed = await store.list({ status: 'failed', orderId });
    const callsWhileBlocked = keysOf(orderId);
    const noRetryForOtherEntry = await retryOutbox(store, { orderId, entryId: `${orderId}-2` }).catch((error: unknown) => error);
    webhook.state.failWhen = undefined;
    const out: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => out.push(t), exitCode: 0 };
    await outboxCommand(io).parseAsync(['retry', orderId, '--cosmos', stack.cosmos.connectionString, '--json'], { from: 'user' });
    const afterRetry = await d.dispatchOrder(orderId);
    // Assess
    expect(failed).toEqual([expect.objectContaining({ id: `outbox:${orderId}-1`, status: 'failed', attempts: 2, lastError: 'webhook answered HTTP 500' })]);
    expect(callsWhileBlocked).toEqual([`outbox:${orderId}-1`, `outbox:${orderId}-1`]);
    expect(telemetry.alerts).toEqual([{ name: 'OutboxFailed', fields: expect.objectContaining({ orderId, entryId: `${orderId}-1`, sequence: 1, attempts: 2 }) }]);
    expect(noRetryForOtherEntry).toMatchObject({ name: 'CliError', code: 'NotFound' });
    expect(JSON.parse(out.join('\n'))).toEqual({ orderId, retried: [`outbox:${orderId}-1`], raced: [] });
    expect(afterRetry.delivered).toEqual([1, 2, 3].map((s) => `outbox:${orderId}-${s}`));
    expect(webhook.applied.filter((k) => k.startsWith(`outbox:${orderId}-`))).toEqual([1, 2, 3].map((s) => `outbox:${orderId}-${s}`));
    const events = await stack.bus.acceptSession('order-events', orderId);
    const received = await receiveExactly(events, 3);
    // Nothing else in the session: the three (now locked by this receiver) are all it holds.
    const held = await peekEverything(events);
    await events.close();
    expect(held.map((m) => m.messageId)).toEqual(received.map((m) => m.messageId));
    // Service Bus took record 1 on its first attempt; the retries only went to the webhook.
    expect(received.map((m) => m.messageId)).toEqual([1, 2, 3].map((s) => `outbox:${orderId}-${s}`));
  });

  it('lists records for operators through the CLI command', async () => {
    const orderId = uid('o');
    await writeRecords(orderId, [1]);
    const out: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => out.push(t), exitCode: 0 };
    await outboxCommand(io).parseAsync(['list', '--order', orderId, '--status', 'pending', '--cosmos', stack.cosmos.connectionString], { from: 'user' });
    expect(out.join('\n')).toMatch(new RegExp(`${orderId}\\s+1\\s+${orderId}-1\\s+pending\\s+0`));
  });
});
