import { metrics } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { ConvoyMetrics } from '../../src/adapters/metrics.js';
import { inMemoryMetrics, valueOf } from './support.js';

describe('ConvoyMetrics', () => {
  it('reports its gauges until closed, so a context built after it is the only one a collection sees', async () => {
    // Prepare: one context's metrics, then the next one's, on the same meter provider.
    const otel = inMemoryMetrics('delta');
    metrics.setGlobalMeterProvider(otel.provider);
    const earlier = new ConvoyMetrics();
    const later = new ConvoyMetrics();
    earlier.relayGauges({ holds: 5, lagSeconds: 9 });
    const before = await otel.collect();
    // Act
    earlier.close();
    later.gaps({ parkedEntries: 2, oldestGapAgeMs: 0 });
    const after = await otel.collect();
    // Assess: the later one has seen no relay figures yet, and the closed one reports none any more.
    expect(valueOf(before, 'convoy.outbox.holds')).toBe(5);
    expect(valueOf(after, 'convoy.outbox.holds')).toBeUndefined();
    expect(valueOf(after, 'convoy.outbox.lag_seconds')).toBeUndefined();
    expect(valueOf(after, 'convoy.parked.entries')).toBe(2);
    metrics.disable();
    await otel.provider.shutdown();
  });
});
