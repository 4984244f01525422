/**
 * W3C trace context on Service Bus messages: the Azure SDKs put it in the `Diagnostic-Id` application property
 * (and newer ones in `traceparent`); the app carries it from `POST /api/ledgers` through `ledger` and `orders`.
 */
import { randomBytes } from 'node:crypto';
import { SpanKind, SpanStatusCode, context as otelContext, isSpanContextValid, trace } from '@opentelemetry/api';
import type { Span, SpanContext } from '@opentelemetry/api';
import { isTraceparent } from '../core/traceContext.js';

/** Application properties that carry a traceparent. */
export const TRACE_PROPERTIES = ['Diagnostic-Id', 'traceparent'] as const;

/** The `traceparent` of a span, when its context is valid. */
export function traceparentOfSpan(span: Span | undefined): string | undefined {
  const context = span?.spanContext();
  if (!context || !isSpanContextValid(context)) return undefined;
  return `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/**
 * The traceparent of `span` (default: the active span), or a new random one (sampled) when there is no valid span.
 * Without an OpenTelemetry SDK a span started under a remote parent carries that parent's context, so the
 * caller's trace still goes on.
 */
export function currentOrNewTraceparent(span: Span | undefined = trace.getActiveSpan()): string {
  return traceparentOfSpan(span) ?? `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
}

/** The application properties that carry `traceparent` on a message. */
export function traceProperties(traceparent: string): Record<(typeof TRACE_PROPERTIES)[number], string> {
  return { 'Diagnostic-Id': traceparent, traceparent };
}

/** The span context a `traceparent` names, as a remote parent. */
export function spanContextOf(traceparent: string): SpanContext | undefined {
  if (!isTraceparent(traceparent)) return undefined;
  const [, traceId, spanId, flags] = traceparent.split('-') as [string, string, string, string];
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16), isRemote: true };
}

/**
 * Runs `work` inside a consumer span named `name`, child of the message's `traceparent` when it has one, so the
 * logs' and alerts' telemetry joins the trace started at `POST /api/ledgers`. A no-op span without an SDK.
 */
export async function inMessageSpan<T>(name: string, traceparent: string | undefined, work: (span: Span) => Promise<T>): Promise<T> {
  const parent = traceparent === undefined ? undefined : spanContextOf(traceparent);
  const active = otelContext.active();
  const context = parent ? trace.setSpanContext(active, parent) : active;
  return trace.getTracer('ledger-convoy').startActiveSpan(name, { kind: SpanKind.CONSUMER }, context, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}
