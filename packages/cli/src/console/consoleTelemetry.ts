/** One alert as the console lists it (an alert carries `orderId`, `entryId`, `sequence`: docs/contracts.md). */
export interface ConsoleAlert {
  /** `IdempotencyKeyConflict`, `SequenceConflict`, `ParkedEntryRejected`, `GapTooOld` or `OutboxFailed`. */
  name: string;
  /** ISO time it was raised. */
  at: string;
  orderId: string | undefined;
  entryId: string | undefined;
  sequence: number | undefined;
  reason: string | undefined;
}

/**
 * What the app's own telemetry tells the console: its alerts and the count of entries applied. Only a console
 * in the app's process has it (`npm start`, see packages/local-host/src/telemetryTap.ts); on Azure these live in
 * Application Insights.
 */
export interface ConsoleTelemetry {
  readonly source: 'in-process';
  /** Alerts raised so far, newest first. */
  recentAlerts(): ConsoleAlert[];
  /** Entries applied since the process started (the `convoy.entries.applied` counter). */
  appliedTotal(): Promise<number>;
}
