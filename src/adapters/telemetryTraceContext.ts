/**
 * W3C trace context on Service Bus messages: the Azure SDKs put it in the `Diagnostic-Id` application property
 * (and newer ones in `traceparent`); the app carries it from `POST /api/ledgers` through `ledger` and `orders`.
 */
import { randomBytes } from 'node:crypto';
import { SpanKind, SpanStatusCode, context as otelContext, isSpanContextValid, trace } from '@opentelemetry/api';
import type { Attributes, Span } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_URL_FULL,
} from '@opentelemetry/semantic-conventions';
import {
  ATTR_AZURE_SERVICEBUS_DISPOSITION_STATUS,
  ATTR_AZURE_SERVICEBUS_MESSAGE_DELIVERY_COUNT,
  ATTR_MESSAGING_BATCH_MESSAGE_COUNT,
  ATTR_MESSAGING_DESTINATION_NAME,
  ATTR_MESSAGING_MESSAGE_ID,
  ATTR_MESSAGING_OPERATION_NAME,
  ATTR_MESSAGING_OPERATION_TYPE,
  ATTR_MESSAGING_SYSTEM,
  AZURE_SERVICEBUS_DISPOSITION_STATUS_VALUE_ABANDON,
  AZURE_SERVICEBUS_DISPOSITION_STATUS_VALUE_COMPLETE,
  AZURE_SERVICEBUS_DISPOSITION_STATUS_VALUE_DEAD_LETTER,
  MESSAGING_OPERATION_TYPE_VALUE_PROCESS,
  MESSAGING_OPERATION_TYPE_VALUE_SEND,
  MESSAGING_SYSTEM_VALUE_SERVICEBUS,
} from '@opentelemetry/semantic-conventions/incubating';
import { isTraceparent } from '../core/traceContext.js';
import { TELEMETRY_SCOPE } from './telemetry.js';
import { errorMessage } from '../core/index.js';

/** The `traceparent` of a span, when its context is valid. */
function traceparentOfSpan(span: Span | undefined): string | undefined {
  const context = span?.spanContext();
  if (!context || !isSpanContextValid(context)) return undefined;
  return `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/**
 * The traceparent of `span` (default: the active span), or a new random one (sampled) when there is no valid span.
 * Without an OpenTelemetry SDK a span started under a remote parent carries that parent's context, so the
 * caller's trace still goes on. @internal exported for tests
 */
export function currentOrNewTraceparent(span: Span | undefined = trace.getActiveSpan()): string {
  return traceparentOfSpan(span) ?? `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
}

/** The application properties that carry `traceparent` on a message. */
export function traceProperties(traceparent: string): Record<string, string> {
  return { 'Diagnostic-Id': traceparent, traceparent };
}

/** The message (or messages, sent at once) a span is about. */
interface MessageSpan {
  /** The queue or topic (`messaging.destination.name`). */
  queue: string;
  messageId?: string | number | Buffer;
  sessionId?: string;
  deliveryCount?: number;
  /** How many messages were sent at once. */
  count?: number;
  /** A received message's W3C trace context (`Diagnostic-Id` / `traceparent`): the consumer span's parent. */
  traceparent?: string;
}

/** A parent: a span of this process, or a `traceparent` from the wire. */
type SpanParent = Span | string | undefined;

/** The context a span starts in: under `parent`, a `traceparent` as a remote parent; a malformed one is no parent. */
function contextOf(parent: SpanParent) {
  const active = otelContext.active();
  if (typeof parent === 'object') return trace.setSpan(active, parent);
  if (parent === undefined || !isTraceparent(parent)) return active;
  const [, traceId, spanId, flags] = parent.split('-') as [string, string, string, string];
  return trace.setSpanContext(active, { traceId, spanId, traceFlags: Number.parseInt(flags, 16), isRemote: true });
}

async function inSpan<T>(
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  parent: SpanParent,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return trace
    .getTracer(TELEMETRY_SCOPE)
    .startActiveSpan(name, { kind, attributes }, contextOf(parent), async (span) => {
      try {
        return await work(span);
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
        span.setAttribute(ATTR_ERROR_TYPE, error instanceof Error ? error.name : 'unknown');
        throw error;
      } finally {
        span.end();
      }
    });
}

/** `convoy.session.id`: the Service Bus session (the order) of a message. */
const CONVOY_SESSION_ID = 'convoy.session.id';

/**
 * Attributes of the OpenTelemetry messaging conventions for Azure Service Bus (incubating in the pinned
 * `@opentelemetry/semantic-conventions`): `messaging.system` stays `servicebus`, as the Azure SDKs' own spans say it,
 * so backends group ours with theirs. The session has no conventional name: `convoy.session.id`.
 */
function messagingAttributes(operation: 'send' | 'process', message: MessageSpan): Attributes {
  const { messageId, sessionId, count, deliveryCount } = message;
  return {
    [ATTR_MESSAGING_SYSTEM]: MESSAGING_SYSTEM_VALUE_SERVICEBUS,
    [ATTR_MESSAGING_OPERATION_TYPE]:
      operation === 'send' ? MESSAGING_OPERATION_TYPE_VALUE_SEND : MESSAGING_OPERATION_TYPE_VALUE_PROCESS,
    [ATTR_MESSAGING_OPERATION_NAME]: operation,
    [ATTR_MESSAGING_DESTINATION_NAME]: message.queue,
    ...(messageId !== undefined && { [ATTR_MESSAGING_MESSAGE_ID]: String(messageId) }),
    ...(sessionId !== undefined && { [CONVOY_SESSION_ID]: sessionId }),
    ...(count !== undefined && { [ATTR_MESSAGING_BATCH_MESSAGE_COUNT]: count }),
    ...(deliveryCount !== undefined && { [ATTR_AZURE_SERVICEBUS_MESSAGE_DELIVERY_COUNT]: deliveryCount }),
  };
}

/**
 * Runs `work` in the consumer span `process <queue>`, child of the message's `traceparent` when it has one, so the
 * logs' and alerts' telemetry joins the trace started at `POST /api/ledgers`. A no-op span without an SDK.
 */
export async function inMessageSpan<T>(message: MessageSpan, work: (span: Span) => Promise<T>): Promise<T> {
  const attributes = messagingAttributes('process', message);
  return inSpan(`process ${message.queue}`, SpanKind.CONSUMER, attributes, message.traceparent, work);
}

/** How a received message was settled, as the conventions' `azure.servicebus.disposition_status` names it. */
export type Disposition = ReturnType<typeof dispositionOf>;

/** Records how the consumer span's message was settled. */
export function settledAs(span: Span, disposition: Disposition): void {
  span.setAttribute(ATTR_AZURE_SERVICEBUS_DISPOSITION_STATUS, disposition);
}

/** The settlement of an `orders` message from the processor's outcome (the processor settles it itself). */
export function dispositionOf(outcome: string) {
  if (outcome === 'deadLettered') return AZURE_SERVICEBUS_DISPOSITION_STATUS_VALUE_DEAD_LETTER;
  return outcome === 'abandoned'
    ? AZURE_SERVICEBUS_DISPOSITION_STATUS_VALUE_ABANDON
    : AZURE_SERVICEBUS_DISPOSITION_STATUS_VALUE_COMPLETE;
}

/**
 * Runs `send` in the producer span `send <queue>` under `parent`, handing it the span's `traceparent` to put on the
 * wire (the consumer's span becomes its child). Without an SDK the span is not recording and carries its parent's
 * context, so the trace id still travels; under a span of this process that has none, a new trace id is made up,
 * and with no parent at all there is none to pass on: so `send` always gets one under a span parent.
 */
export async function inSendSpan<T, P extends SpanParent>(
  queue: string,
  message: { messageId?: string; sessionId?: string; count?: number },
  parent: P,
  send: (traceparent: P extends Span ? string : string | undefined, span: Span) => Promise<T>,
): Promise<T> {
  const attributes = messagingAttributes('send', { queue, ...message });
  return inSpan(`send ${queue}`, SpanKind.PRODUCER, attributes, parent, (span) => {
    const traceparent =
      traceparentOfSpan(span) ?? (typeof parent === 'object' ? currentOrNewTraceparent(span) : parent);
    // Under a span parent it is always a string (its own, or a new trace's); TypeScript cannot narrow `P` from it.
    return send(traceparent as Parameters<typeof send>[0], span);
  });
}

/** Runs `work` in the server span `<method> <route>` of an HTTP function, child of the request's `traceparent`. */
export async function inServerSpan<T extends { status?: number }>(
  method: string,
  route: string,
  traceparent: string | undefined,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const attributes = { [ATTR_HTTP_REQUEST_METHOD]: method, [ATTR_HTTP_ROUTE]: route };
  return inSpan(`${method} ${route}`, SpanKind.SERVER, attributes, traceparent, async (span) => {
    const response = await work(span);
    if (response.status !== undefined) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, response.status);
    return response;
  });
}

/**
 * Runs `post` in the client span `POST` of an outgoing HTTP request to `url` under `parent`, handing it the span's
 * `traceparent` for the request's header; `post` resolves with the answer's status.
 */
export async function inHttpClientSpan(
  url: string,
  parent: SpanParent,
  post: (traceparent: string | undefined) => Promise<number>,
): Promise<number> {
  const target = new URL(url);
  const attributes = {
    [ATTR_HTTP_REQUEST_METHOD]: 'POST',
    [ATTR_SERVER_ADDRESS]: target.hostname,
    [ATTR_URL_FULL]: `${target.origin}${target.pathname}`,
  };
  return inSpan('POST', SpanKind.CLIENT, attributes, parent, async (span) => {
    const status = await post(traceparentOfSpan(span) ?? (typeof parent === 'string' ? parent : undefined));
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
    if (status >= 400) span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${status}` });
    return status;
  });
}
