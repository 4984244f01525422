import { DeadLetterReason } from '../deadLetterReasons.js';
import type { CoreConfig } from '../config.js';
import { errorCode } from '../errors.js';
import { requestHash } from '../hash.js';
import { systemClock, timerSleep, type Clock, type Sleep } from '../ports/clock.js';
import type { MessageSettlement } from '../ports/messageSettlement.js';
import type { OrderStore } from '../ports/orderStore.js';
import { AlertName, CounterName, type Telemetry } from '../ports/telemetry.js';
import { normaliseBody } from '../schemas/body.js';
import { validateEntry } from '../schemas/ledger.js';
import type { Entry } from '../schemas/entry.js';
import { drainStep } from './drainStep.js';
import { entryStep, type EntryStepOutcome } from './entryStep.js';
import { OrderCache } from './orderCache.js';
import { ProcessOutcome, type ProcessResult, type ReceivedOrderMessage } from './processResult.js';
import { retryTransient } from './retry.js';
import type { StepContext } from './stepContext.js';
import { settle, type Settled } from './settle.js';

/** Settings the processor uses (a subset of `CoreConfig`). */
export type OrderProcessorOptions = Pick<
  CoreConfig,
  'consumerName' | 'inboxTtlSeconds' | 'transientRetryBudgetMs' | 'retryBaseDelayMs' | 'retryMaxDelayMs'
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

  /** Processes one message from the `orders` queue. */
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
      settled = await this.handle(validated.value, result.requestHash, message, context.cache ?? new OrderCache(1), result);
    }

    await settle(context.settlement, settled, result);
    result.durationMs = this.clock.now() - startedAt;
    this.report(result);
    return result;
  }

  private async handle(entry: Entry, hash: string, message: ReceivedOrderMessage, cache: OrderCache, result: ProcessResult): Promise<Settled> {
    const ctx: StepContext = {
      store: this.deps.store,
      cache,
      clock: this.clock,
      consumer: this.deps.options.consumerName,
      inboxTtlSeconds: this.deps.options.inboxTtlSeconds,
    };
    const origin = { correlationId: message.correlationId, messageId: message.messageId };
    try {
      const outcome = await this.retrying(entryStep(ctx, entry, hash, origin), entry);
      if (outcome.kind === 'deadLetter') {
        if (outcome.alert) this.alert(outcome.alert, entry, outcome.description);
        return { kind: 'deadLetter', reason: outcome.reason, description: outcome.description };
      }
      // Drain also after a duplicate: a crash mid-drain is resumed by the redelivered message.
      if (outcome.kind !== 'parked') await this.drain(ctx, entry, result);
      return { kind: 'complete', outcome: completedOutcome(outcome) };
    } catch (error) {
      const code = errorCode(error);
      const description = error instanceof Error ? error.message : String(error);
      this.deps.telemetry.log('error', 'entry abandoned', { orderId: entry.orderId, entryId: entry.entryId, sequence: entry.sequence, code, description });
      return { kind: 'abandon', errorCode: code, description };
    }
  }

  private async drain(ctx: StepContext, trigger: Entry, result: ProcessResult): Promise<void> {
    for (;;) {
      const step = await this.retrying(drainStep(ctx, trigger.orderId), trigger);
      if (step.kind === 'none') return;
      if (step.kind === 'applied') {
        result.drained++;
        this.deps.telemetry.count(CounterName.EntriesApplied, { via: 'drain' });
        continue;
      }
      result.rejected++;
      this.deps.telemetry.count(CounterName.ParkedRejected);
      this.alert(AlertName.ParkedEntryRejected, step.entry, step.description, { reason: step.reason });
      return; // the order waits at this sequence (rules 10 and 11)
    }
  }

  private retrying<T>(work: () => Promise<T>, entry: Entry): Promise<T> {
    const { options, telemetry } = this.deps;
    return retryTransient(work, {
      budgetMs: options.transientRetryBudgetMs,
      baseDelayMs: options.retryBaseDelayMs,
      maxDelayMs: options.retryMaxDelayMs,
      clock: this.clock,
      sleep: this.sleep,
      random: this.deps.random,
      onRetry: (error, attempt, delayMs) => {
        telemetry.count(CounterName.StoreRetries);
        telemetry.log('warn', 'transient store failure, retrying', {
          orderId: entry.orderId,
          entryId: entry.entryId,
          sequence: entry.sequence,
          code: errorCode(error),
          attempt,
          delayMs,
        });
      },
    });
  }

  private alert(name: AlertName, entry: Entry, description: string, extra: Record<string, unknown> = {}): void {
    this.deps.telemetry.alert(name, { orderId: entry.orderId, entryId: entry.entryId, sequence: entry.sequence, description, ...extra });
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
