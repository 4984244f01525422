import { metrics, trace } from '@opentelemetry/api';
import { BasicTracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { AlertName, CounterName } from 'ledger-convoy/core';
import type { ConsoleAlert, ConsoleTelemetry } from '@ledger-convoy/cli/console';

/** Most alerts the tap keeps (oldest dropped first): the console shows the recent ones. */
const KEPT_ALERTS = 500;
const ALERT_NAMES: ReadonlySet<string> = new Set(Object.values(AlertName));

/** A pull reader: the console collects when it samples, nothing is exported. */
class PullReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** The in-process telemetry the console reads, and a way to take it down again. */
export interface TelemetryTap extends ConsoleTelemetry {
  close(): Promise<void>;
}

/**
 * Registers an OpenTelemetry tracer and meter provider in this process so the console of `npm start` sees what the
 * app emits through `@opentelemetry/api` (`src/adapters/telemetry.ts`): each alert is an event named after it on a
 * span, and `convoy.entries.applied` a counter. Only when nothing else registered a provider first — with
 * Application Insights on, the alerts and metrics go there and the tap returns undefined.
 */
export function startTelemetryTap(): TelemetryTap | undefined {
  const alerts: ConsoleAlert[] = [];
  const processor: SpanProcessor = {
    onStart: () => undefined,
    onEnd(span: ReadableSpan) {
      for (const event of span.events) {
        if (!ALERT_NAMES.has(event.name)) continue;
        const a = event.attributes ?? {};
        const [seconds, nanos] = event.time;
        alerts.push({
          name: event.name,
          at: new Date(seconds * 1000 + Math.floor(nanos / 1e6)).toISOString(),
          orderId: typeof a.orderId === 'string' ? a.orderId : undefined,
          entryId: typeof a.entryId === 'string' ? a.entryId : undefined,
          sequence: typeof a.sequence === 'number' ? a.sequence : undefined,
          reason: typeof a.reason === 'string' ? a.reason : undefined,
        });
        if (alerts.length > KEPT_ALERTS) alerts.splice(0, alerts.length - KEPT_ALERTS);
      }
    },
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [processor] });
  const reader = new PullReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  if (!trace.setGlobalTracerProvider(tracerProvider)) return undefined;
  if (!metrics.setGlobalMeterProvider(meterProvider)) {
    trace.disable();
    return undefined;
  }
  return {
    source: 'in-process',
    recentAlerts: () => [...alerts].reverse(),
    async appliedTotal() {
      const { resourceMetrics } = await reader.collect();
      let total = 0;
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics) {
          if (metric.descriptor.name !== CounterName.EntriesApplied) continue;
          for (const point of metric.dataPoints) total += typeof point.value === 'number' ? point.value : 0;
        }
      }
      return total;
    },
    async close() {
      trace.disable();
      metrics.disable();
      await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}
