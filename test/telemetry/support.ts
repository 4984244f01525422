import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import type { DataPoint, Histogram } from '@opentelemetry/sdk-metrics';

/** A reader that only collects when asked. */
class CollectingReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/** One data point, flattened. */
export interface Point {
  name: string;
  attributes: Record<string, unknown>;
  value: number | Histogram;
}

/**
 * An in-memory OpenTelemetry metrics pipeline: a provider and a way to read what it holds. With `delta`, each
 * collection holds only what was recorded or observed since the last one (cumulative keeps a gauge's last value).
 */
export function inMemoryMetrics(temporality: 'cumulative' | 'delta' = 'cumulative') {
  const reader = new CollectingReader(
    temporality === 'delta' ? { aggregationTemporalitySelector: () => AggregationTemporality.DELTA } : {},
  );
  const provider = new MeterProvider({ readers: [reader] });
  return {
    provider,
    async collect(): Promise<Point[]> {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics.scopeMetrics.flatMap((scope) =>
        scope.metrics.flatMap((metric) =>
          (metric.dataPoints as DataPoint<number | Histogram>[]).map((p) => ({
            name: metric.descriptor.name,
            attributes: { ...p.attributes },
            value: p.value,
          })),
        ),
      );
    },
  };
}

/** The value of the point named `name` whose attributes include `attributes`; sums several matching points. */
export function valueOf(
  points: readonly Point[],
  name: string,
  attributes: Record<string, unknown> = {},
): number | undefined {
  const matching = points.filter(
    (p) => p.name === name && Object.entries(attributes).every(([k, v]) => p.attributes[k] === v),
  );
  if (matching.length === 0) return undefined;
  return matching.reduce((sum, p) => sum + (typeof p.value === 'number' ? p.value : p.value.count), 0);
}
