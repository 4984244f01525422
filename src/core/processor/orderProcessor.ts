import { DeadLetterReason } from '../deadLetterReasons.js';
import type { CoreConfig } from '../config.js';
import { errorCode } from '../errors.js';
import { readResubmitCount, requestHash } from '../hash.js';
import { systemClock, timerSleep, type Clock, type Sleep } from '../ports/clock.js';
import type { MessageSettlement } from '../ports/messageSettlement.js';
import type { OrderStore } from '../ports/orderStore.js';
import { CounterName, type AlertName, type Telemetry } from '../ports/telemetry.js';
import { OrderStatus } from '../order/orderState.js';
import { HAND_OFF_PROPERTY } from '../splitter/planLedger.js';
import { normaliseBody } from '../schemas/body.js';
import { validateEntry } from '../schemas/ledger.js';
import type { Entry } from '../schemas/entry.js';
import { messageTraceparent } from '../traceContext.js';
import { entryStep, type EntryStepOutcome } from './entryStep.js';
import { drainDue, raiseOwedAlerts, type FollowUpReport, type RunStep } from './followUp.js';
import { OrderCache } from './orderCache.js';
import { ProcessOutcome, type ProcessResult, type ReceivedOrderMessage } from './processResult.js';
import { retryTransient } from './retry.js';
import type { StepContext } from './stepContext.js';
import { settle, type Settled } from './settle.js';

/** Settings the processor uses (a subset of `CoreConfig`). */
export type OrderProcessorOptions = Pick<
  CoreConfig,
  'consumerName' | 'inboxTtlSeconds' | 'outboxTtlSeconds' | 'transientRetryBudgetMs' | 'retryBaseDelayMs' | 'retryMaxDelayMs'
>;

/** What the processor depends on. */
export interface OrderProcessorDeps {
  store: OrderStore;
  telemetry: Telemetry;
  options: OrderProcessorOptions;
  /** @default systemClock */
  clock?: Clock;
  /** @default timerSleep */
  sleep?: Sleep;
  /** Jitter source in [0, 1). @default Math.random */
  random?: () => number;
}

/** Per-message inputs from the host. */
export interface ProcessContext {
  settlement: MessageSettlement;
  /** The session's order cache; without one every message starts with a read. */
  cache?: OrderCache;
}

/** What {@link OrderProcessor.drain} did to one order. */
export interface DrainReport extends FollowUpReport {
  orderId: string;
}

/** Keys carried into logs and alerts. */
type LogKeys = { orderId: string; entryId?: string; sequence?: number };

/**
 * The order processor: decides what an order entry message means for its order (rules 1–8, 10, 11 in the
 * design's order), writes it with one atomic store commit per step, drains parked entries that became due, and
 * settles the message exactly once, after the commit. Never throws for a decision; rejects only if the
 * settlement itself fails (the lock then lapses and the inbox makes the redelivery harmless).
 */
export class OrderProcessor {
  private readonly clock: Clock;
  private readonly sleep: Sleep;

  constructor(private readonly deps: OrderProcessorDeps) {
    this.clock = deps.clock ?? systemClock;
    this.sleep = deps.sleep ?? timerSleep;
  }

  /**
   * Processes one message from the `orders` queue. All of its store work — the entry, the drain it triggers and
   * the alerts it owes — shares one deadline, `TRANSIENT_RETRY_BUDGET` from its start (rule 8).
   */
  async process(message: ReceivedOrderMessage, context: ProcessContext): Promise<ProcessResult> {
    const startedAt = this.clock.now();
    const validated = validateEntry(message.body);
    const keys = validated.ok ? validated.value : readableKeys(message);
    const result: ProcessResult = {
      outcome: ProcessOutcome.Abandoned,
      orderId: keys.orderId,
      entryId: keys.entryId,
      sequence: keys.sequence,
      messageId: message.messageId,
      requestHash: undefined,
      drained: 0,
      rejected: 0,
      durationMs: 0,
    };

    let settled: Settled;
    if (!validated.ok) {
      const description = validated.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
      settled = { kind: 'deadLetter', reason: DeadLetterReason.SchemaValidationFailed, description };
    } else if (validated.value.orderId !== message.sessionId) {
      const description = `orderId ${validated.value.orderId} differs from the session ${String(message.sessionId)}`;
      settled = { kind: 'deadLetter', reason: DeadLetterReason.SchemaValidationFailed, description };
    } else {
      result.requestHash = requestHash(validated.value);
      const ctx: StepContext = this.stepContext(context.cache ?? new OrderCache(1));
      const { orderId, entryId, sequence } = validated.value;
      const run = this.runner({ orderId, entryId, sequence }, startedAt + this.deps.options.transientRetryBudgetMs);
      settled = await this.handle(ctx, validated.value, result.requestHash, message, run, result);
      // The cache holds the order as this message's last step left (or read) it.
      if (ctx.cache.get(orderId)?.doc.state.status === OrderStatus.Deleted) result.releaseSession = 'orderDeleted';
    }

    if (!result.releaseSession && isHandOff(message.applicationProperties)) result.releaseSession = 'handOff';
    if (settled.kind === 'abandon') delete result.releaseSession;
    await settle(context.settlement, settled, result);
    result.durationMs = this.clock.now() - startedAt;
    this.report(result);
    return result;
  }

  /**
   * For the gap timer (an idle session never looks again): applies the parked entries of `orderId` that are due —
   * e.g. after the message that filled the gap was dead-lettered by the broker before its drain succeeded — rejects
   * those that became impossible, and raises the `ParkedEntryRejected` alerts still owed. Safe to run while a
   * session works on the same order (every commit is conditional). Rejects with the store error once the retry
   * budget is spent; nothing is lost, the next call resumes.
   */
  async drain(orderId: string, context: { cache?: OrderCache } = {}): Promise<DrainReport> {
    const ctx = this.stepContext(context.cache ?? new OrderCache(1));
    const run = this.runner({ orderId }, this.clock.now() + this.deps.options.transientRetryBudgetMs);
    const report: DrainReport = { orderId, drained: 0, rejected: 0, alerted: 0 };
    await drainDue(ctx, orderId, run, this.deps.telemetry, report);
    await raiseOwedAlerts(ctx, orderId, run, this.deps.telemetry, report);
    return report;
  }

  private async handle(ctx: StepContext, entry: Entry, hash: string, message: ReceivedOrderMessage, run: RunStep, result: ProcessResult): Promise<Settled> {
    // Read once here and kept on the documents, so the outbox delivery continues this message's trace.
    const origin = {
      correlationId: message.correlationId,
      messageId: message.messageId,
      traceparent: messageTraceparent(message.applicationProperties),
      resubmitCount: readResubmitCount(message.applicationProperties),
    };
    let outcome: EntryStepOutcome;
    try {
      outcome = await run(entryStep(ctx, entry, hash, origin));
    } catch (error) {
      return this.abandon(error, entry, 'entry abandoned');
    }
    if (outcome.kind === 'deadLetter' && outcome.alert) this.alert(outcome.alert, entry, outcome.description);

    // Drain after every outcome: a parked entry may be due whatever this message was (a crash mid-drain, a
    // message dead-lettered by the broker before its drain succeeded). Without the order cached, only an entry
    // that is now applied can have made something due.
    let drainFailure: unknown;
    const report: FollowUpReport = { drained: 0, rejected: 0, alerted: 0 };
    if (ctx.cache.get(entry.orderId) || outcome.kind === 'applied' || outcome.kind === 'duplicate') {
      try {
        await drainDue(ctx, entry.orderId, run, this.deps.telemetry, report);
      } catch (error) {
        drainFailure = error;
      }
      await this.raiseOwedAlertsQuietly(ctx, entry, run, report);
    }
    result.drained = report.drained;
    result.rejected = report.rejected;

    if (outcome.kind === 'deadLetter') {
      // The decision stands; the drain is resumed by the next message or the gap timer.
      if (drainFailure !== undefined) this.logFailure('warn', 'drain failed after a dead letter', drainFailure, entry);
      return { kind: 'deadLetter', reason: outcome.reason, description: outcome.description };
    }
    // The redelivery resumes the drain (it meets the inbox record and drains again).
    if (drainFailure !== undefined) return this.abandon(drainFailure, entry, 'drain abandoned');
    return { kind: 'complete', outcome: completedOutcome(outcome) };
  }

  /** Alerts are owed durably: a failure here only delays them to the next step on the order or the gap timer. */
  private async raiseOwedAlertsQuietly(ctx: StepContext, entry: Entry, run: RunStep, report: FollowUpReport): Promise<void> {
    try {
      await raiseOwedAlerts(ctx, entry.orderId, run, this.deps.telemetry, report);
    } catch (error) {
      this.logFailure('warn', 'owed alerts not raised yet', error, entry);
    }
  }

  private stepContext(cache: OrderCache): StepContext {
    const { options } = this.deps;
    return { store: this.deps.store, cache, clock: this.clock, consumer: options.consumerName, inboxTtlSeconds: options.inboxTtlSeconds, outboxTtlSeconds: options.outboxTtlSeconds };
  }

  /** Runs re-runnable steps with retries that all end by one `deadline`. */
  private runner(keys: LogKeys, deadline: number): RunStep {
    const { options, telemetry } = this.deps;
    return (work) =>
      retryTransient(work, {
        budgetMs: options.transientRetryBudgetMs,
        deadline,
        baseDelayMs: options.retryBaseDelayMs,
        maxDelayMs: options.retryMaxDelayMs,
        clock: this.clock,
        sleep: this.sleep,
        random: this.deps.random,
        onRetry: (error, attempt, delayMs) => {
          telemetry.count(CounterName.StoreRetries);
          telemetry.log('warn', 'transient store failure, retrying', { ...keys, code: errorCode(error), attempt, delayMs });
        },
      });
  }

  private abandon(error: unknown, entry: Entry, message: string): Settled {
    const { code, description } = this.logFailure('error', message, error, entry);
    return { kind: 'abandon', errorCode: code, description };
  }

  private logFailure(level: 'warn' | 'error', message: string, error: unknown, entry: Entry) {
    const code = errorCode(error);
    const description = error instanceof Error ? error.message : String(error);
    this.deps.telemetry.log(level, message, { orderId: entry.orderId, entryId: entry.entryId, sequence: entry.sequence, code, description });
    return { code, description };
  }

  private alert(name: AlertName, entry: Entry, description: string): void {
    this.deps.telemetry.alert(name, { orderId: entry.orderId, entryId: entry.entryId, sequence: entry.sequence, description });
  }

  private report(result: ProcessResult): void {
    const { telemetry } = this.deps;
    const counter = {
      applied: CounterName.EntriesApplied,
      duplicate: CounterName.EntriesDuplicate,
      parked: CounterName.EntriesParked,
      deadLettered: CounterName.EntriesDeadLettered,
      abandoned: CounterName.EntriesAbandoned,
    }[result.outcome];
    telemetry.count(counter, result.reason ? { reason: result.reason } : undefined);
    const level = result.outcome === 'deadLettered' || result.outcome === 'abandoned' ? 'warn' : 'info';
    telemetry.log(level, `entry ${result.outcome}`, { ...result });
  }
}

function completedOutcome(
  outcome: Exclude<EntryStepOutcome, { kind: 'deadLetter' }>,
): typeof ProcessOutcome.Applied | typeof ProcessOutcome.Duplicate | typeof ProcessOutcome.Parked {
  if (outcome.kind === 'duplicate') return ProcessOutcome.Duplicate;
  return outcome.kind === 'parked' ? ProcessOutcome.Parked : ProcessOutcome.Applied;
}

/**
 * Best-effort keys of an invalid message, for logs and the result: from the body where it is JSON and has them,
 * else the session, the `messageId` (the design's fallback dedup key) and the `sequence` application property.
 */
function readableKeys(message: ReceivedOrderMessage): { orderId?: string; entryId?: string; sequence?: number } {
  const parsed = normaliseBody(message.body);
  const body = parsed.ok && typeof parsed.value === 'object' && parsed.value !== null ? (parsed.value as Record<string, unknown>) : {};
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const int = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined);
  return {
    orderId: text(body.orderId) ?? message.sessionId,
    entryId: text(body.entryId) ?? message.messageId,
    sequence: int(body.sequence) ?? int(message.applicationProperties?.sequence),
  };
}

/** The splitter's hand-off marker (an optional application property of the `orders` contract). */
function isHandOff(properties: Readonly<Record<string, unknown>> | undefined): boolean {
  return properties?.[HAND_OFF_PROPERTY] === true;
}
