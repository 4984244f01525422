/**
 * The order processor: one `orders` message, top to bottom — validate → look up → decide → commit → settle — and the
 * drain of parked entries that became due. Every decision is `decide.ts`'s and every step `entryStep.ts`'s (read what
 * the entry needs, decide once, write); this file runs them within the message's budget, retrying transient failures
 * (rule 8), and settles the message exactly once, after the commit (docs/architecture.md, "One message's path").
 */
import { MAX_DEAD_LETTER_DESCRIPTION } from '../deadLetterReasons.js';
import { rejectedEntryId } from '../documents/documentIds.js';
import { rejectedDetails } from '../documents/rejectedEntryDocument.js';
import { errorMessage } from '../errorMessage.js';
import { CoreErrorCode, StoreError, errorCode } from '../errors.js';
import { OrderStatus } from '../order/orderState.js';
import { systemClock, timerSleep, type Clock, type Sleep } from '../ports/clock.js';
import type { MessageSettlement } from '../ports/messageSettlement.js';
import { AlertName, CounterName } from '../ports/telemetry.js';
import { retry } from '../retry.js';
import { HAND_OFF_PROPERTY } from '../splitter/planLedger.js';
import { checkMessage, type ReceivedOrderMessage } from './checkMessage.js';
import type { CheckedEntry } from './decide.js';
import { EntryStep, MAX_STEP_ROUNDS, type FinalDecision, type StepMemory, type StepOutcome } from './entryStep.js';
import { OrderCache } from './orderCache.js';
import type { EntryOrigin } from './orderWrites.js';
import {
  reportResult,
  resultOf,
  type DrainReport,
  type Handled,
  type OrderProcessorDeps,
  type ProcessContext,
  type ProcessResult,
} from './processResult.js';

/** Processes `orders` messages; never throws for a decision, only when the settlement itself fails. */
export class OrderProcessor {
  private readonly clock: Clock;
  private readonly sleep: Sleep;
  private readonly step: EntryStep;

  constructor(private readonly deps: OrderProcessorDeps) {
    this.clock = deps.clock ?? systemClock;
    this.sleep = deps.sleep ?? timerSleep;
    this.step = new EntryStep({ store: deps.store, clock: this.clock, options: deps.options });
  }

  /**
   * Processes one message. All of its store work — the entry, the drain it triggers and the alerts it owes — shares
   * one deadline, `TRANSIENT_RETRY_BUDGET` from its start (rule 8).
   */
  async process(message: ReceivedOrderMessage, context: ProcessContext): Promise<ProcessResult> {
    const startedAt = this.clock.now();
    const { entry: checked, keys, origin } = checkMessage(message);
    const cache = context.cache ?? new OrderCache(1);
    const handled = await this.handle(
      checked,
      message.sessionId,
      origin,
      cache,
      startedAt + this.deps.options.transientRetryBudgetMs,
    );
    await settle(context.settlement, handled);
    const release = handled.kind === 'decided' ? releaseAfter(handled.decision, checked, cache, message) : undefined;
    const requestHash = checked.valid ? checked.hash : undefined;
    const result = resultOf({ ...keys, requestHash }, handled, message, {
      release,
      durationMs: this.clock.now() - startedAt,
    });
    reportResult(this.deps.telemetry, result);
    return result;
  }

  /**
   * For the gap monitor (an idle session never looks again): applies the parked entries of `orderId` that are due,
   * rejects those that became impossible, and raises the `ParkedEntryRejected` alerts still owed. Safe while a session
   * works on the same order (every write is conditional). Rejects once the budget is spent; the next call resumes.
   */
  async drain(orderId: string, context: { cache?: OrderCache } = {}): Promise<DrainReport> {
    const cache = context.cache ?? new OrderCache(1);
    const deadline = this.clock.now() + this.deps.options.transientRetryBudgetMs;
    const { drained, rejected } = await this.drainDue(orderId, cache, deadline);
    const alerted = await this.raiseOwedAlerts(orderId, cache, deadline);
    return { orderId, drained, rejected, alerted };
  }

  /** Look up → decide → commit for the message's entry (one step), then the drain it may make due. */
  private async handle(
    checked: CheckedEntry,
    sessionId: string | undefined,
    origin: EntryOrigin,
    cache: OrderCache,
    deadline: number,
  ): Promise<Handled> {
    const keys = checked.valid ? checked.entry : { orderId: sessionId ?? '' };
    let decision: FinalDecision;
    try {
      const outcome = await this.withRetries(keys, deadline, (memory) =>
        this.step.message({ checked, sessionId, origin }, cache, memory),
      );
      if (outcome.kind !== 'decided') throw new TypeError(`a message's step ended as ${outcome.kind}`);
      decision = outcome.decision;
    } catch (error) {
      return this.abandoned(error, keys, 'entry abandoned');
    }
    // Rule 6 settles at once: nothing of the order was read, and nothing follows from it.
    if (!checked.valid || decision.rule === 6) return { kind: 'decided', decision };
    const { entry } = checked;
    if (decision.kind === 'deadLetter' && decision.alert) {
      this.deps.telemetry.alert(decision.alert, {
        orderId: entry.orderId,
        entryId: entry.entryId,
        sequence: entry.sequence,
        description: decision.reason,
      });
    }
    // A parked entry may be due whatever this message was (a crash mid-drain, a message the broker dead-lettered
    // before its drain succeeded). Without the order cached, only an entry applied or seen now can have made one due.
    const madeDue =
      decision.kind === 'apply' ||
      decision.kind === 'duplicate' ||
      (decision.kind === 'committed' && decision.as === 'applied');
    if (!cache.has(entry.orderId) && !madeDue) return { kind: 'decided', decision };
    let drain: { drained: number; rejected: number };
    try {
      drain = await this.drainDue(entry.orderId, cache, deadline);
    } catch (error) {
      // A dead letter stands (the next message or the gap monitor resumes the drain); anything else is redelivered,
      // and the redelivery meets its inbox record and drains again.
      if (decision.kind !== 'deadLetter') return this.abandoned(error, entry, 'drain abandoned');
      this.logFailure('warn', 'drain failed after a dead letter', error, entry);
      drain = { drained: 0, rejected: 0 };
    }
    // Alerts are owed durably: a failure here only delays them to the next step on the order or the gap monitor.
    await this.raiseOwedAlerts(entry.orderId, cache, deadline).catch((error: unknown) =>
      this.logFailure('warn', 'owed alerts not raised yet', error, entry),
    );
    return { kind: 'decided', decision, ...drain };
  }

  /** Applies, one step each, every parked entry due now (rejecting those now impossible), until none is due. */
  private async drainDue(
    orderId: string,
    cache: OrderCache,
    deadline: number,
  ): Promise<{ drained: number; rejected: number }> {
    const report = { drained: 0, rejected: 0 };
    for (;;) {
      const outcome = await this.withRetries({ orderId }, deadline, (memory) =>
        this.step.parked(orderId, cache, memory),
      );
      if (outcome.kind !== 'drained') return report;
      if (outcome.as === 'applied') {
        report.drained++;
        this.deps.telemetry.count(CounterName.EntriesApplied, { via: 'drain' });
      } else {
        report.rejected++;
        this.deps.telemetry.count(CounterName.ParkedRejected);
      }
    }
  }

  /**
   * Raises the `ParkedEntryRejected` alert of every rejected entry still owing one (`alerted: false`, written by the
   * rejecting commit), then marks them under the order's ETag: at least once whatever fails in between (a crash, an
   * unknown outcome, the budget running out) — the next step on the order or the gap monitor raises it. A lost mark
   * only repeats an alert; within one call, each is raised once. Its description is read from the rejected entry's
   * document.
   */
  private async raiseOwedAlerts(orderId: string, cache: OrderCache, deadline: number): Promise<number> {
    const raised = new Set<string>();
    await this.withRetries({ orderId }, deadline, async (memory): Promise<StepOutcome> => {
      for (let round = 0; round < MAX_STEP_ROUNDS; round++) {
        const order = await this.step.currentOrder(orderId, cache);
        const owed = order?.doc.rejected.filter((r) => !r.alerted) ?? [];
        if (!order || owed.length === 0) return { kind: 'nothingDue' };
        for (const record of owed) {
          const key = `${record.sequence}:${record.entryId}`;
          if (raised.has(key)) continue;
          const stored = await this.deps.store.readRejected(orderId, rejectedEntryId(record.sequence));
          const description = rejectedDetails(stored?.doc)?.description;
          const { entryId, sequence, reason } = record;
          this.deps.telemetry.alert(AlertName.ParkedEntryRejected, {
            orderId,
            entryId,
            sequence,
            description: description ?? `${reason} (its rejected document is missing)`,
            reason,
          });
          raised.add(key);
        }
        const now = new Date(this.clock.now()).toISOString();
        const next = {
          ...order.doc,
          rejected: order.doc.rejected.map((r) => (r.alerted ? r : { ...r, alerted: true })),
          updatedAt: now,
        };
        const outcome = await this.step.commit(orderId, { order: { doc: next, etag: order.etag } }, cache);
        if (outcome.kind === 'committed') return { kind: 'nothingDue' };
        if (outcome.kind === 'transient' || outcome.kind === 'unknown')
          return { kind: 'retry', error: outcome.error, memory };
      }
      return {
        kind: 'retry',
        error: new StoreError(
          CoreErrorCode.StoreTransient,
          `Order ${orderId} kept changing while its alerts were marked`,
        ),
        memory,
      };
    });
    return raised.size;
  }

  /**
   * Rule 8: runs a step again after a transient failure or an unknown outcome, with backoff, until the message's
   * deadline. The step hands back, as a value, what its next attempt must know (`StepMemory`); a store error it
   * throws (a failed read) is retried with the memory it was given.
   */
  private withRetries(
    keys: { orderId: string; entryId?: string; sequence?: number },
    deadline: number,
    step: (memory: StepMemory) => Promise<StepOutcome>,
  ): Promise<StepOutcome> {
    const { options, telemetry } = this.deps;
    let memory: StepMemory = { ownAttempts: [] };
    return retry(
      async () => {
        const outcome = await step(memory);
        if (outcome.kind !== 'retry') return outcome;
        memory = outcome.memory;
        throw outcome.error;
      },
      {
        deadline,
        // Rule 8: a busy or unreachable store, or a write whose outcome is unknown, is tried again; anything else is not.
        retryable: (error) =>
          errorCode(error) === CoreErrorCode.StoreTransient || errorCode(error) === CoreErrorCode.StoreOutcomeUnknown,
        baseDelayMs: options.retryBaseDelayMs,
        maxDelayMs: options.retryMaxDelayMs,
        random: this.deps.random,
        clock: this.clock,
        sleep: this.sleep,
        onRetry: (error, attempt, delayMs) => {
          telemetry.count(CounterName.StoreRetries);
          telemetry.log('warn', 'transient store failure, retrying', {
            orderId: keys.orderId,
            entryId: keys.entryId,
            sequence: keys.sequence,
            code: errorCode(error),
            attempt,
            delayMs,
          });
        },
      },
    );
  }

  private abandoned(
    error: unknown,
    entry: { orderId: string; entryId?: string; sequence?: number },
    message: string,
  ): Handled {
    const { code, description } = this.logFailure('error', message, error, entry);
    return { kind: 'abandoned', errorCode: code, description };
  }

  private logFailure(
    level: 'warn' | 'error',
    message: string,
    error: unknown,
    entry: { orderId: string; entryId?: string; sequence?: number },
  ) {
    const code = errorCode(error);
    const description = errorMessage(error);
    this.deps.telemetry.log(level, message, {
      orderId: entry.orderId,
      entryId: entry.entryId,
      sequence: entry.sequence,
      code,
      description,
    });
    return { code, description };
  }
}

/** The one place a decision becomes a settlement: complete, dead-letter (with its reason) or abandon. */
async function settle(settlement: MessageSettlement, handled: Handled): Promise<void> {
  if (handled.kind === 'abandoned') return settlement.abandon();
  const { decision } = handled;
  if (decision.kind === 'deadLetter')
    return settlement.deadLetter(decision.deadLetterReason, decision.reason.slice(0, MAX_DEAD_LETTER_DESCRIPTION));
  return settlement.complete();
}

/**
 * Whether the host should hand the session on (`releaseSession`) instead of idling `sessionIdleTimeout` on it: the
 * order is deleted after this message (its `OrderDeleted` applied now, directly or by the drain, or seen again: end of
 * sequence, nothing can follow), or the splitter marked the message as its order's last entry in that ledger.
 * Never for an abandoned message (the redelivery comes first), nor for one of another order than the session's.
 */
function releaseAfter(
  decision: FinalDecision,
  checked: CheckedEntry,
  cache: OrderCache,
  message: ReceivedOrderMessage,
): ProcessResult['releaseSession'] {
  // The cache holds the order as this message's last step left (or read) it.
  const deleted =
    checked.valid && decision.rule !== 6 && cache.get(checked.entry.orderId)?.doc.state.status === OrderStatus.Deleted;
  if (deleted) return 'orderDeleted';
  return message.applicationProperties?.[HAND_OFF_PROPERTY] === true ? 'handOff' : undefined;
}
