/**
 * Trace context of outbox deliveries: each delivery runs in a producer span, child of the entry's `traceparent`,
 * and passes that span's `traceparent` on. Without an OpenTelemetry SDK the span is not recording and carries its
 * parent's context, so the entry's trace id still reaches `order-events` and the webhook.
 */
import { SpanKind, SpanStatusCode, context as otelContext, trace } from '@opentelemetry/api';
import { TELEMETRY_SCOPE } from './telemetry.js';
import { spanContextOf, traceparentOfSpan } from './telemetryTraceContext.js';

/** Runs `send` in a producer span named `name` under `parent`, handing it the traceparent to put on the wire. */
export async function producerTraceparent<T>(name: string, parent: string | undefined, send: (traceparent: string | undefined) => Promise<T>): Promise<T> {
  const remote = parent === undefined ? undefined : spanContextOf(parent);
  const ctx = remote ? trace.setSpanContext(otelContext.active(), remote) : otelContext.active();
  return trace.getTracer(TELEMETRY_SCOPE).startActiveSpan(name, { kind: SpanKind.PRODUCER }, ctx, async (span) => {
    try {
      return await send(traceparentOfSpan(span) ?? parent);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}
