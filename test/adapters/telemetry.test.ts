import { metrics, trace } from '@opentelemetry/api';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createTelemetry } from '../../src/adapters/telemetry.js';
import { currentOrNewTraceparent, inMessageSpan } from '../../src/adapters/telemetryTraceContext.js';
import { isTraceparent, messageTraceparent as traceparentOf } from '../../src/core/traceContext.js';

class CollectingReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/** Sums of every counter the reader has seen, by name. */
async function counterSums(reader: CollectingReader): Promise<Record<string, number>> {
  const { resourceMetrics } = await reader.collect();
  const sums: Record<string, number> = {};
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      sums[metric.descriptor.name] = metric.dataPoints.reduce((sum, point) => sum + Number(point.value), 0);
    }
  }
  return sums;
}

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return { lines, destination: stream };
}

describe('pino + OpenTelemetry telemetry adapter', () => {
  it('writes structured log lines with the key fields first and drops undefined ones', () => {
    // Prepare
    const { lines, destination } = capture();
    const telemetry = createTelemetry({ level: 'debug', destination });
    // Act
    telemetry.log('info', 'entry applied', {
      durationMs: 3,
      outcome: 'applied',
      orderId: 'o-1',
      entryId: 'e-1',
      sequence: 2,
      ledgerId: 'L-1',
      reason: undefined,
    });
    // Assess
    expect(lines).toHaveLength(1);
    expect(Object.keys(lines[0]!).filter((k) => !['level', 'time', 'pid', 'hostname', 'service'].includes(k))).toEqual([
      'entryId',
      'orderId',
      'sequence',
      'ledgerId',
      'outcome',
      'durationMs',
      'msg',
    ]);
    expect(lines[0]).toMatchObject({ level: 30, msg: 'entry applied', service: 'ledger-convoy' });
  });

  it('raises an alert as a warn line, an event and a counter, all named exactly after the alert', async () => {
    // Prepare
    const { lines, destination } = capture();
    const reader = new CollectingReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    metrics.setGlobalMeterProvider(meterProvider);
    trace.setGlobalTracerProvider(tracerProvider);
    const telemetry = createTelemetry({ destination });
    // Act
    telemetry.alert('IdempotencyKeyConflict', {
      orderId: 'o-1',
      entryId: 'e-1',
      sequence: 3,
      description: 'hash differs',
    });
    telemetry.alert('IdempotencyKeyConflict', { orderId: 'o-2', entryId: 'e-9', sequence: undefined });
    telemetry.count('convoy.entries.applied', { via: 'drain' });
    // Assess
    expect(lines[0]).toMatchObject({
      level: 40,
      alert: 'IdempotencyKeyConflict',
      orderId: 'o-1',
      entryId: 'e-1',
      sequence: 3,
    });
    const spans = exporter.getFinishedSpans();
    expect(spans[0]).toMatchObject({
      name: 'alert IdempotencyKeyConflict',
      events: [{ name: 'IdempotencyKeyConflict', attributes: { orderId: 'o-1', entryId: 'e-1', sequence: 3 } }],
    });
    expect(spans[1]!.events[0]!.attributes).toEqual({ orderId: 'o-2', entryId: 'e-9' });
    expect(await counterSums(reader)).toEqual({ IdempotencyKeyConflict: 2, 'convoy.entries.applied': 1 });
    metrics.disable();
    trace.disable();
    await Promise.all([meterProvider.shutdown(), tracerProvider.shutdown()]);
  });
});

describe('W3C trace context on messages', () => {
  it('reads Diagnostic-Id or traceparent whatever the key case, ignoring malformed values', () => {
    const tp = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    expect(traceparentOf({ 'Diagnostic-Id': tp })).toBe(tp);
    expect(traceparentOf({ 'diagnostic-Id': tp })).toBe(tp);
    expect(traceparentOf({ traceparent: 'garbage', 'Diagnostic-Id': '|abc.1.' })).toBeUndefined();
  });

  it("starts a message's span as a child of its traceparent, and a new trace for a malformed one", async () => {
    // Prepare
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    trace.setGlobalTracerProvider(provider);
    const tp = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    // Act
    await inMessageSpan({ queue: 'orders', traceparent: tp }, async () => {});
    await inMessageSpan({ queue: 'orders', traceparent: '00-not-a-trace' }, async () => {});
    // Assess
    const [child, root] = exporter.getFinishedSpans();
    expect(child?.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(child?.parentSpanContext).toMatchObject({ spanId: 'b7ad6b7169203331', traceFlags: 1, isRemote: true });
    expect(root?.parentSpanContext).toBeUndefined();
    expect(root?.spanContext().traceId).not.toBe('0af7651916cd43dd8448eb211c80319c');
    trace.disable();
    await provider.shutdown();
  });

  it('generates a valid sampled traceparent when no span is active', () => {
    const generated = currentOrNewTraceparent();
    expect(isTraceparent(generated)).toBe(true);
    expect(generated.endsWith('-01')).toBe(true);
    expect(currentOrNewTraceparent()).not.toBe(generated);
  });
});
