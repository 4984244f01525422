import type { DeadLetterReason } from '../../../src/core/deadLetterReasons.js';
import type { Clock } from '../../../src/core/ports/clock.js';
import type { MessageSettlement } from '../../../src/core/ports/messageSettlement.js';
import type { AlertFields, AlertName, CounterName, LogLevel, Telemetry } from '../../../src/core/ports/telemetry.js';

/** One recorded settlement. */
export type SettlementCall =
  | { action: 'complete' }
  | { action: 'abandon' }
  | { action: 'deadLetter'; reason: DeadLetterReason; description: string };

/** A {@link MessageSettlement} that records what it was asked to do. */
export class RecordingSettlement implements MessageSettlement {
  readonly calls: SettlementCall[] = [];

  async complete(): Promise<void> {
    this.calls.push({ action: 'complete' });
  }

  async abandon(): Promise<void> {
    this.calls.push({ action: 'abandon' });
  }

  async deadLetter(reason: DeadLetterReason, description: string): Promise<void> {
    this.calls.push({ action: 'deadLetter', reason, description });
  }

  /** Lock renewals are not settlements: counted here, never in {@link calls}. */
  renewals = 0;

  async renewLock(): Promise<void> {
    this.renewals++;
  }
}

/** A {@link Telemetry} that records logs, alerts and counters. */
export class RecordingTelemetry implements Telemetry {
  readonly logs: { level: LogLevel; message: string; fields: Readonly<Record<string, unknown>> }[] = [];
  readonly alerts: { name: AlertName; fields: AlertFields }[] = [];
  readonly counters = new Map<string, number>();

  log(level: LogLevel, message: string, fields: Readonly<Record<string, unknown>>): void {
    this.logs.push({ level, message, fields });
  }

  alert(name: AlertName, fields: AlertFields): void {
    this.alerts.push({ name, fields });
  }

  count(name: CounterName): void {
    this.counters.set(name, (this.counters.get(name) ?? 0) + 1);
  }

  /** How often a counter was incremented. */
  counted(name: CounterName): number {
    return this.counters.get(name) ?? 0;
  }
}

/** A clock that moves only when told; its `sleep` advances it instead of waiting. */
export class ManualClock implements Clock {
  /** Every sleep requested, in ms. */
  readonly sleeps: number[] = [];

  constructor(private ms = Date.parse('2025-01-01T00:00:00.000Z')) {}

  now(): number {
    return this.ms;
  }

  advance(ms: number): void {
    this.ms += ms;
  }

  /** A `Sleep` that advances this clock. */
  readonly sleep = async (ms: number): Promise<void> => {
    this.sleeps.push(ms);
    this.ms += ms;
  };
}
