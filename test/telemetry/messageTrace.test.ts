import { SpanKind, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2eStack, type E2eStack } from '../e2e/support/e2eStack.js';
import { setEnv } from '../outbox/support/eventually.js';
import { startWebhook } from '../outbox/support/webhookServer.js';
import { until } from '../support/serviceBusWaits.js';

/**
 * One entry's telemetry, read through an in-memory exporter on the whole local stack: the spans from
 * `POST /api/ledgers` to the `order-events` send and the webhook POST are one trace, each span the child of the one
 * before it on the message's way, named and attributed as OpenTelemetry's messaging conventions say.
 */
describe("one message's spans", () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let stack: E2eStack;
  let webhook: Awaited<ReturnType<typeof startWebhook>>;
  let restoreEnv: () => void;

  beforeAll(async () => {
    trace.setGlobalTracerProvider(provider);
    webhook = await startWebhook();
    restoreEnv = setEnv({ OUTBOX_WEBHOOK_URL: `${webhook.url}/hooks?token=not-in-the-span` });
    stack = await startE2eStack();
  }, 90_000);
  afterAll(async () => {
    await stack?.close();
    await webhook?.close();
    restoreEnv?.();
    trace.disable();
    await provider.shutdown();
  });

  it(
    'form one trace from POST /api/ledgers through both queues to the order-events send and the webhook POST',
    { timeout: 60_000 },
    async () => {
      // Prepare
      const orderId = `trace-${Date.now()}`;
      const ledgerId = `L-${orderId}`;
      const entry = {
        entryId: `${orderId}-e1`,
        orderId,
        sequence: 1,
        type: 'OrderCreated',
        data: { customerId: 'c-1', currency: 'EUR' },
      };

      // Act
      const posted = await fetch(`${stack.host.httpUrl}/ledgers`, {
        method: 'POST',
        body: JSON.stringify({ ledgerId, entries: [entry] }),
      });
      expect(posted.status).toBe(202);
      await until(
        () => [...webhook.appliedBodies.values()].some((b) => b.orderId === orderId),
        'the webhook POST of the entry',
      );
      const spanOf = (name: string, match: (s: ReadableSpan) => boolean = () => true) =>
        exporter.getFinishedSpans().find((s) => s.name === name && match(s));
      const forOrder = (s: ReadableSpan) => s.attributes['convoy.session.id'] === orderId;
      await until(
        () =>
          spanOf('POST', (s) => s.attributes['http.response.status_code'] !== undefined) !== undefined &&
          spanOf('send order-events', forOrder) !== undefined,
        'the relay spans ended',
      );

      // Assess: the chain, parent by parent.
      const server = spanOf('POST /api/ledgers')!;
      const sendLedger = spanOf('send ledger', (s) => s.attributes['messaging.message.id'] === ledgerId)!;
      const processLedger = spanOf('process ledger', (s) => s.attributes['messaging.message.id'] === ledgerId)!;
      const sendOrders = spanOf(
        'send orders',
        (s) => s.parentSpanContext?.spanId === processLedger.spanContext().spanId,
      )!;
      const processOrder = spanOf('process orders', forOrder)!;
      const sendEvent = spanOf('send order-events', forOrder)!;
      const postWebhook = spanOf(
        'POST',
        (s) => s.parentSpanContext?.spanId === sendOrders.spanContext().spanId && s.kind === SpanKind.CLIENT,
      )!;
      const chain = { server, sendLedger, processLedger, sendOrders, processOrder, sendEvent, postWebhook };
      for (const [name, span] of Object.entries(chain)) expect(span, name).toBeDefined();
      const traceId = server.spanContext().traceId;
      for (const [name, span] of Object.entries(chain)) expect(span.spanContext().traceId, name).toBe(traceId);
      const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
      expect(parentOf(sendLedger)).toBe(server.spanContext().spanId);
      expect(parentOf(processLedger)).toBe(sendLedger.spanContext().spanId);
      expect(parentOf(sendOrders)).toBe(processLedger.spanContext().spanId);
      expect(parentOf(processOrder)).toBe(sendOrders.spanContext().spanId);
      // The relay delivers the event stored on the entry's record, which keeps the entry's own trace context (its message's).
      expect(parentOf(sendEvent)).toBe(sendOrders.spanContext().spanId);
      // The webhook got the trace context of its client span.
      const call = [...webhook.appliedBodies.entries()].find(([, b]) => b.orderId === orderId);
      expect(call).toBeDefined();

      // Kinds and the conventions' attributes.
      expect(server).toMatchObject({
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': 'POST', 'http.route': '/api/ledgers', 'http.response.status_code': 202 },
      });
      const messaging = (operation: 'send' | 'process', queue: string) => ({
        'messaging.system': 'servicebus',
        'messaging.operation.type': operation,
        'messaging.operation.name': operation,
        'messaging.destination.name': queue,
      });
      expect(sendLedger).toMatchObject({ kind: SpanKind.PRODUCER, attributes: messaging('send', 'ledger') });
      expect(processLedger).toMatchObject({
        kind: SpanKind.CONSUMER,
        attributes: {
          ...messaging('process', 'ledger'),
          'azure.servicebus.disposition_status': 'complete',
          'azure.servicebus.message.delivery_count': expect.any(Number),
        },
      });
      expect(sendOrders).toMatchObject({
        kind: SpanKind.PRODUCER,
        attributes: { ...messaging('send', 'orders'), 'messaging.batch.message_count': 1 },
      });
      expect(processOrder).toMatchObject({
        kind: SpanKind.CONSUMER,
        attributes: {
          ...messaging('process', 'orders'),
          'messaging.message.id': expect.stringMatching(new RegExp(`^${entry.entryId}:[0-9a-f]{16}$`)),
          'azure.servicebus.disposition_status': 'complete',
        },
      });
      expect(sendEvent).toMatchObject({
        kind: SpanKind.PRODUCER,
        attributes: {
          ...messaging('send', 'order-events'),
          'messaging.message.id': expect.stringMatching(/^evt-[0-9a-f]{32}$|^outbox:/),
        },
      });
      expect(postWebhook).toMatchObject({
        kind: SpanKind.CLIENT,
        attributes: { 'http.request.method': 'POST', 'http.response.status_code': 204, 'server.address': '127.0.0.1' },
      });
      // No secret of the URL (its query) in the span.
      expect(postWebhook.attributes['url.full']).toBe(`${webhook.url}/hooks`);
    },
  );
});
