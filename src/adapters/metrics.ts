/**
 * The app's OpenTelemetry instruments beyond the counters `createTelemetry` keeps (entries applied, duplicates,
 * parked, dead-lettered by reason, abandoned, store retries, one counter per alert): conflicts, processing
 * duration, outbox delivery counts and gauges, and the gap gauges. Everything goes through `@opentelemetry/api`,
 * a no-op until an SDK is registered (Application Insights, or a test's `MeterProvider`).
 */
import type { BatchObservableCallback, Meter } from '@opentelemetry/api';
import {
  ATTR_MESSAGING_DESTINATION_NAME,
  ATTR_MESSAGING_OPERATION_NAME,
  ATTR_MESSAGING_SYSTEM,
  MESSAGING_SYSTEM_VALUE_SERVICEBUS,
  METRIC_MESSAGING_PROCESS_DURATION,
} from '@opentelemetry/semantic-conventions/incubating';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import { DeadLetterReason } from '../core/deadLetterReasons.js';
import type { OutboxObserver } from '../core/outbox/outboxPorts.js';
import type { GapGauges } from '../core/order/gapMonitor.js';
import type { ProcessResult } from '../core/processor/processResult.js';
import { onCurrentMeter } from './telemetry.js';

/** Names of the instruments defined here. @internal */
export const MetricName = {
  /** Counter: entries dead-lettered for a conflict (`IdempotencyKeyConflict`, `SequenceConflict`), by `reason`. */
  EntriesConflicts: 'convoy.entries.conflicts',
  /** Histogram (ms): time to process one `orders` message, by `outcome`. */
  ProcessingDuration: 'convoy.entries.processing_duration',
  /** Counter: events the relay delivered to every target. */
  OutboxDelivered: 'convoy.outbox.delivered',
  /** Counter: failed delivery attempts of the relay, by `target`. */
  OutboxAttemptsFailed: 'convoy.outbox.attempts_failed',
  /** Gauge: orders on hold (an outbox target kept failing for them; `convoy outbox retry` releases them). */
  OutboxHolds: 'convoy.outbox.holds',
  /** Gauge (s): the relay's lag, the age of the oldest stored event not yet past any lease's checkpoint; 0 when none. */
  OutboxLag: 'convoy.outbox.lag_seconds',
  /** Gauge: parked entries across all orders. */
  ParkedEntries: 'convoy.parked.entries',
  /** Gauge (s): age of the oldest parked entry, 0 when none. */
  OldestGapAge: 'convoy.gap.oldest_age',
} as const;
/** One of {@link MetricName}. */
export type MetricName = (typeof MetricName)[keyof typeof MetricName];

/** What the relay's gauge timer saw. */
export interface RelaySnapshot {
  holds: number;
  lagSeconds: number;
}

const CONFLICTS: ReadonlySet<string> = new Set([
  DeadLetterReason.IdempotencyKeyConflict,
  DeadLetterReason.SequenceConflict,
]);

/**
 * The instruments, and the last values of the gauges (the outbox holds and lag from the relay's timer, the gap figures
 * from the gap monitor), which the gauges report at each collection. Implements the outbox relay's observer.
 */
export class ConvoyMetrics implements OutboxObserver {
  /** On the global meter provider, looked up at each use (it may be registered after startup). */
  private readonly instruments = onCurrentMeter((meter) => this.create(meter));
  /** Takes the latest gauges' callback off their meter. */
  private unobserve: (() => void) | undefined;
  private relay: RelaySnapshot | undefined;
  private gap: GapGauges | undefined;
  private closed = false;

  /** Records one processed `orders` message: its duration, and a conflict when it was dead-lettered for one. */
  processed(result: Pick<ProcessResult, 'outcome' | 'reason' | 'durationMs' | 'errorCode'>): void {
    const i = this.current();
    if (i === undefined) return;
    i.duration.record(result.durationMs, { outcome: result.outcome });
    // The conventions' own figure (seconds), with the attributes backends group Service Bus consumers by.
    i.processDuration.record(result.durationMs / 1000, {
      [ATTR_MESSAGING_SYSTEM]: MESSAGING_SYSTEM_VALUE_SERVICEBUS,
      [ATTR_MESSAGING_OPERATION_NAME]: 'process',
      [ATTR_MESSAGING_DESTINATION_NAME]: 'orders',
      ...(result.outcome === 'abandoned' && { [ATTR_ERROR_TYPE]: result.errorCode ?? 'abandoned' }),
    });
    if (result.outcome === 'deadLettered' && result.reason !== undefined && CONFLICTS.has(result.reason))
      i.conflicts.add(1, { reason: result.reason });
  }

  delivered(records: number): void {
    this.current()?.delivered.add(records);
  }

  attemptFailed(target: string): void {
    this.current()?.attemptsFailed.add(1, { target });
  }

  held(_orderId: string): void {
    // The holds gauge comes from the timer's count, which also sees releases.
  }

  /** Keeps the relay timer's latest figures for the outbox gauges. */
  relayGauges(snapshot: RelaySnapshot): void {
    this.current();
    this.relay = { ...snapshot };
  }

  /** Keeps the gap monitor's latest figures for the gap gauges. */
  gaps(snapshot: GapGauges): void {
    this.current();
    this.gap = { ...snapshot };
  }

  /**
   * Takes the gauges' callback off the meter: an app context built after this one (a restarted in-process host)
   * registers its own, and this one's last figures must not be reported beside them.
   */
  close(): void {
    this.closed = true;
    this.unobserve?.();
  }

  /** The instruments of the current meter provider; none once closed (a late invocation records nothing). */
  private current() {
    return this.closed ? undefined : this.instruments();
  }

  private create(meter: Meter) {
    const gauge = (name: MetricName, description: string, unit: string) =>
      meter.createObservableGauge(name, { description, unit });
    const gauges = [
      gauge(MetricName.OutboxHolds, 'Orders whose events are held for a target', '{order}'),
      gauge(MetricName.OutboxLag, 'Age of the oldest stored event the relay has not passed', 's'),
      gauge(MetricName.ParkedEntries, 'Entries parked behind a gap', '{entry}'),
      gauge(MetricName.OldestGapAge, 'Age of the oldest parked entry', 's'),
    ];
    const observe: BatchObservableCallback = (result) => {
      const { relay, gap } = this;
      const values = [relay?.holds, relay?.lagSeconds, gap?.parkedEntries, gap && gap.oldestGapAgeMs / 1000];
      // Nothing observed yet (no sweep or scan has run in this process): report nothing rather than a false 0.
      values.forEach((value, i) => value !== undefined && result.observe(gauges[i]!, value));
    };
    this.unobserve?.();
    meter.addBatchObservableCallback(observe, gauges);
    this.unobserve = () => meter.removeBatchObservableCallback(observe, gauges);
    return {
      conflicts: meter.createCounter(MetricName.EntriesConflicts, {
        description: 'Entries dead-lettered for an idempotency-key or sequence conflict',
      }),
      duration: meter.createHistogram(MetricName.ProcessingDuration, {
        description: 'Time to process one orders message',
        unit: 'ms',
      }),
      processDuration: meter.createHistogram(METRIC_MESSAGING_PROCESS_DURATION, {
        description: 'Duration of processing operation',
        unit: 's',
      }),
      delivered: meter.createCounter(MetricName.OutboxDelivered, {
        description: 'Stored events delivered to every target',
      }),
      attemptsFailed: meter.createCounter(MetricName.OutboxAttemptsFailed, {
        description: 'Failed outbox delivery attempts',
      }),
    };
  }
}
