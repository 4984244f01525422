/** Alert names, exactly as the alert rules match them. */
export const AlertName = {
  IdempotencyKeyConflict: 'IdempotencyKeyConflict',
  SequenceConflict: 'SequenceConflict',
  ParkedEntryRejected: 'ParkedEntryRejected',
  GapTooOld: 'GapTooOld',
  OutboxFailed: 'OutboxFailed',
  /** An operator discarded an order's outbox hold (`convoy outbox discard`): its held records will not be delivered. */
  OutboxDiscarded: 'OutboxDiscarded',
} as const;
/** One of {@link AlertName}. */
export type AlertName = (typeof AlertName)[keyof typeof AlertName];

/** Counter names (OpenTelemetry metric names). */
export const CounterName = {
  EntriesApplied: 'convoy.entries.applied',
  EntriesDuplicate: 'convoy.entries.duplicate',
  EntriesParked: 'convoy.entries.parked',
  EntriesDeadLettered: 'convoy.entries.dead_lettered',
  EntriesAbandoned: 'convoy.entries.abandoned',
  ParkedRejected: 'convoy.parked.rejected',
  StoreRetries: 'convoy.store.retries',
} as const;
/** One of {@link CounterName}. */
export type CounterName = (typeof CounterName)[keyof typeof CounterName];

/** Log levels of {@link Telemetry.log}. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Fields every alert carries; more may follow. */
export interface AlertFields {
  orderId: string;
  entryId: string;
  sequence: number | undefined;
  [field: string]: unknown;
}

/**
 * Structured logs, alerts and counters. An adapter writes an alert as a warn-level log line plus an
 * OpenTelemetry event of the same name, so alert rules can match either.
 */
export interface Telemetry {
  log(level: LogLevel, message: string, fields: Readonly<Record<string, unknown>>): void;
  alert(name: AlertName, fields: AlertFields): void;
  count(name: CounterName, attributes?: Readonly<Record<string, string>>): void;
}
