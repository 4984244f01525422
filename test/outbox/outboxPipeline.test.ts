import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CosmosOutboxStore } from '../../src/adapters/outboxCosmosStore.js';
import { ServiceBusOrderEventTarget } from '../../src/adapters/outboxServiceBusTarget.js';
import { WebhookOrderEventTarget } from '../../src/adapters/outboxWebhookTarget.js';
import { OutboxDispatcher, silentTelemetry, type MessageSettlement } from '../../src/core/index.js';
import { appContext } from '../../src/functions/appContext.js';
import { outboxRuntime } from '../../src/functions/outboxDispatcher.js';
import { drainSession, postLedger, runSplitter, startStack, type Stack } from '../integration/support/stack.js';
import { interleave, orderEntries, uid } from '../integration/support/ledgers.js';
import { PATIENCE_MS, peekEverything, receiveExactly } from '../support/serviceBusWaits.js';
import { eventually, setEnv } from './support/eventually.js';
import { startWebhook } from './support/webhookServer.js';

let stack: Stack;
let webhook: Awaited<ReturnType<typeof startWebhook>>;
let restoreEnv: () => void;

beforeAll(async () => {
  stack = await startStack();
  // Every key fails twice at the webhook before it is accepted.
  webhook = await startWebhook({ failFirst: 2 });
  // The webhook's timeout only guards against a hang: a local call that outlasted it would add an attempt.
  restoreEnv = setEnv({ OUTBOX_WEBHOOK_URL: webhook.url, OUTBOX_BACKOFF_BASE: '20', OUTBOX_BACKOFF_MAX: '50', OUTBOX_WEBHOOK_TIMEOUT: String(PATIENCE_MS) });
});

afterAll(async () => {
  await outboxRuntime(appContext()).dispatcher.idle();
  await stack?.close();
  await webhook?.close();
  restoreEnv?.();
});

/** Every `order-events` message of the order, in session order, read from the broker (peeked): all were sent before. */
async function orderEvents(orderId: string): Promise<ServiceBusReceivedMessage[]> {
  const receiver = await stack.bus.acceptSession('order-events', orderId);
  try {
    return await peekEverything(receiver);
  } finally {
    await receiver.close();
  }
}

const traceIdOf = (traceparent: unknown) => String(traceparent).split('-')[1];

describe('transactional outbox → order-events and webhook, on both emulators', () => {
  it('delivers every applied entry once per key, in sequence order per order, with a stable idempotency key', async () => {
    // Prepare
    const a = uid('o');
    const b = uid('o');
    const entries = interleave(orderEntries(a, [1250, -250]), orderEntries(b, [700]));
    const ledgerId = uid('L');
    await postLedger(stack, JSON.stringify({ ledgerId, entries }));
    const split = await runSplitter(stack);
    const runtime = outboxRuntime(appContext());
    const keys = entries.map((e) => `outbox:${e.entryId}`);
    // Act: the processor's fast path dispatches after each apply; the sweep retries what the webhook refused.
    await drainSession(stack, a);
    await drainSession(stack, b);
    await eventually(
      async () => {
        await runtime.dispatcher.idle();
        await runtime.dispatcher.sweep();
      },
      () => webhook.applied.length === keys.length,
    );
    const eventsA = await orderEvents(a);
    const eventsB = await orderEvents(b);
    const { resources: records } = await stack.container.items
      .query({ query: "SELECT * FROM c WHERE c.docType = 'outbox' AND (c.orderId = @a OR c.orderId = @b)", parameters: [{ name: '@a', value: a }, { name: '@b', value: b }] })
      .fetchAll();
    // Assess: webhook — three calls per key (two refused), identical bodies, each key applied once.
    expect([...webhook.applied].sort()).toEqual([...keys].sort());
    for (const key of keys) {
      const calls = webhook.calls.filter((c) => c.key === key);
      expect(calls.map((c) => c.status)).toEqual([503, 503, 204]);
      expect(new Set(calls.map((c) => JSON.stringify(c.body))).size).toBe(1);
    }
    for (const orderId of [a, b]) {
      const accepted = webhook.applied.filter((k) => webhook.appliedBodies.get(k)!.orderId === orderId).map((k) => webhook.appliedBodies.get(k)!.sequence);
      expect(accepted).toEqual([...accepted].sort((x, y) => x - y));
    }
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
    // W3C trace context: the ledger's trace goes on through order-events and the webhook.
    const ledgerTrace = traceIdOf(split.message.applicationProperties?.traceparent);
    expect(traceIdOf(last.applicationProperties?.traceparent)).toBe(ledgerTrace);
    expect(last.applicationProperties?.['Diagnostic-Id']).toBe(last.applicationProperties?.traceparent);
    expect(traceIdOf(webhook.calls.find((c) => c.key === `outbox:${a}-3`)?.traceparent)).toBe(ledgerTrace);
    // The records: completed with the receipts and a TTL, nothing deleted.
    expect(records).toHaveLength(keys.length);
    for (const r of records) {
      expect(r).toMatchObject({ status: 'completed', attempts: 3, ttl: 604_800, result: [{ target: 'order-events', detail: 'taken in an earlier attempt' }, { target: 'webhook', detail: 'HTTP 204' }] });
    }
  });

  it("lets a fresh dispatcher's sweep deliver records written by a processor that stopped before its fast path, with the ledger's trace", async () => {
    // Prepare: a ledger posted under a known trace, split, and its entries applied by the app's processor alone —
    // as if the instance died right after each commit: no fast path, nothing about the records in any memory.
    const traceId = '5cf92f3577b34da6a3ce929d0e0e4737';
    const orderId = uid('o');
    const entries = orderEntries(orderId, [40]);
    await postLedger(stack, JSON.stringify({ ledgerId: uid('L'), entries }), { traceparent: `00-${traceId}-00f067aa0ba902b7-01` });
    await runSplitter(stack);
    const receiver = await stack.bus.acceptSession('orders', orderId);
    // The splitter put one message per entry into the session: take exactly those, one at a time.
    for (let n = 0; n < entries.length; n++) {
      const [message] = (await receiveExactly(receiver, 1)) as [ServiceBusReceivedMessage];
      const settlement: MessageSettlement = {
        complete: () => receiver.completeMessage(message),
        abandon: () => receiver.abandonMessage(message),
        deadLetter: (reason, description) => receiver.deadLetterMessage(message, { deadLetterReason: reason, deadLetterErrorDescription: description }),
      };
      const { body, messageId, sessionId, correlationId, applicationProperties, deliveryCount } = message;
      await appContext().processor().process({ body, messageId: String(messageId), sessionId, correlationId: String(correlationId), applicationProperties, deliveryCount }, { settlement });
    }
    await receiver.close();
    const hook = await startWebhook();
    const sender = stack.bus.createSender('order-events');
    const fresh = new OutboxDispatcher({
      store: new CosmosOutboxStore(stack.container),
      targets: [new ServiceBusOrderEventTarget(sender), new WebhookOrderEventTarget({ url: hook.url, timeoutMs: PATIENCE_MS })],
      telemetry: silentTelemetry,
      options: { leaseMs: 30_000, maxAttempts: 3, backoffBaseMs: 20, backoffMaxMs: 50, completedTtlSeconds: 60 },
    });
    try {
      // Act
      const report = await fresh.sweep();
      const events = await orderEvents(orderId);
      // Assess: every record went out from the fresh dispatcher, each still in the ledger's trace.
      expect(report.delivered).toBeGreaterThanOrEqual(entries.length);
      expect(events.map((m) => m.body.sequence)).toEqual([1, 2]);
      for (const event of events) {
        expect(traceIdOf(event.applicationProperties?.traceparent)).toBe(traceId);
        expect(traceIdOf(event.applicationProperties?.['Diagnostic-Id'])).toBe(traceId);
      }
      const calls = hook.calls.filter((c) => c.body.orderId === orderId);
      expect(calls.map((c) => c.body.sequence)).toEqual([1, 2]);
      expect(calls.map((c) => traceIdOf(c.traceparent))).toEqual([traceId, traceId]);
      const { resources: records } = await stack.container.items
        .query({ query: "SELECT * FROM c WHERE c.docType = 'outbox' AND c.orderId = @o", parameters: [{ name: '@o', value: orderId }] })
        .fetchAll();
      expect(records.map((r) => [r.status, traceIdOf(r.traceparent)])).toEqual([['completed', traceId], ['completed', traceId]]);
    } finally {
      await sender.close();
      await hook.close();
    }
  });
});
