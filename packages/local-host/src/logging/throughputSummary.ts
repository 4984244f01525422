import type { Logger } from 'pino';

/** How often {@link ThroughputSummary} logs. */
const SUMMARY_INTERVAL_MS = 10_000;

/**
 * What the host's functions did, summed over a few seconds and logged as one info line ("orderProcessor 120
 * completed, 2 deadLettered · ledgerSplitter 4 completed · …"): a person follows a run from it, while each message's
 * own line is at debug.
 */
export class ThroughputSummary {
  private counts = new Map<string, Map<string, number>>();
  private timer: NodeJS.Timeout | undefined;

  /** Counts one invocation of `functionName` that ended as `outcome` (a settlement, an HTTP status, `invoked`…). */
  record(functionName: string, outcome: string): void {
    let byOutcome = this.counts.get(functionName);
    if (!byOutcome) this.counts.set(functionName, (byOutcome = new Map()));
    byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + 1);
  }

  /** Logs what was counted every `intervalMs`, when anything was. */
  start(logger: Logger, intervalMs = SUMMARY_INTERVAL_MS): void {
    this.timer ??= setInterval(() => this.flush(logger, intervalMs), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Logs and clears the counts; nothing when there are none. */
  flush(logger: Logger, intervalMs: number): void {
    if (this.counts.size === 0) return;
    const functions = Object.fromEntries(
      [...this.counts].map(([name, byOutcome]) => [name, Object.fromEntries(byOutcome)]),
    );
    const text = [...this.counts]
      .map(([name, byOutcome]) => `${name} ${[...byOutcome].map(([outcome, n]) => `${n} ${outcome}`).join(', ')}`)
      .join(' · ');
    this.counts = new Map();
    logger.info({ functions, intervalMs }, `last ${Math.round(intervalMs / 1000)} s: ${text}`);
  }
}
