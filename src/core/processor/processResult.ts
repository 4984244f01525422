import type { CoreConfig } from '../config.js';
import { MAX_DEAD_LETTER_DESCRIPTION, type DeadLetterReason } from '../deadLetterReasons.js';
import { errorMessage } from '../errorMessage.js';
import { errorCode } from '../errors.js';
import type { Clock, Sleep } from '../ports/clock.js';
import type { OrderStore } from '../ports/orderStore.js';
import { CounterName, type Telemetry } from '../ports/telemetry.js';
import type { MessageSettlement } from '../ports/messageSettlement.js';
import { OrderStatus } from '../order/orderState.js';
import { HAND_OFF_PROPERTY } from '../splitter/planLedger.js';
import type { Decision, ReceivedOrderMessage, Rule } from './decide.js';
import type { OrderCache } from './orderCache.js';

/**
 * Settings the processor uses (resolved by `resolveCoreConfig`); `ordersQueue.lockDurationMs`, for renewing a lock
 * while the store throttles, defaults to the queue's (PT1M).
 */
type OrderProcessorOptions = Pick<
  CoreConfig,
  'consumerName' | 'transientRetryBudgetMs' | 'retryBaseDelayMs' | 'retryMaxDelayMs'
> & { ordersQueue?: Pick<CoreConfig['ordersQueue'], 'lockDurationMs'> };

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
  /** The orders this session (or instance) last wrote or read; without one every message starts with a read. */
  cache?: OrderCache;
}

/** What a drain did to one order: parked entries applied, rejected (rule 11), and rejection alerts raised. */
export interface DrainReport {
  orderId: string;
  drained: number;
  rejected: number;
  alerted: number;
}

/** How a message ended; each maps to exactly one settlement. @internal */
export const ProcessOutcome = {
  /** Applied now (complete). */
  Applied: 'applied',
  /** Seen before with the same hash (complete). */
  Duplicate: 'duplicate',
  /** Parked behind a gap (complete). */
  Parked: 'parked',
  /** Dead-lettered with `reason`. */
  DeadLettered: 'deadLettered',
  /** Handed back for redelivery after a transient failure outlasted the budget, or an unexpected error. */
  Abandoned: 'abandoned',
} as const;
/** One of {@link ProcessOutcome}. */
export type ProcessOutcome = (typeof ProcessOutcome)[keyof typeof ProcessOutcome];

/** What the processor did with one message, for logs and the host. */
export interface ProcessResult {
  outcome: ProcessOutcome;
  /** The rule that decided (docs/architecture.md, "Processing rules"); 8 for an abandoned message. */
  rule: Rule | 8;
  /** For `deadLettered`. */
  reason?: DeadLetterReason;
  /** For `deadLettered` and `abandoned`: why. */
  description?: string;
  /** For `abandoned`: the `code` of the error, when it had one. */
  errorCode?: string;
  /** Rule 10: for a dead letter of a sequence not yet applied, the sequence its order now waits at. */
  holds?: number;
  /** From the body, else the session. */
  orderId: string | undefined;
  /** From the body, else the `messageId` (a body that cannot be parsed). */
  entryId: string | undefined;
  sequence: number | undefined;
  messageId: string | undefined;
  requestHash: string | undefined;
  /** Parked entries applied after this one, in the same invocation. */
  drained: number;
  /** Parked entries moved to `rejected` (rule 11) in the same invocation. */
  rejected: number;
  durationMs: number;
  /**
   * Whether the host should hand the session on (`releaseSession`) instead of idling on it for `sessionIdleTimeout`:
   * `orderDeleted` when the order is known deleted after this message (end of sequence, nothing can follow);
   * `handOff` when the message carries the splitter's `handOff` marker (its order's last entry in that ledger). Never
   * for an abandoned message: the host stays on the session and the redelivery comes first.
   */
  releaseSession?: 'orderDeleted' | 'handOff';
}

/** What a message's handling decides of its result: the outcome and why, and what its drain did. */
export type Ending = Pick<
  ProcessResult,
  'outcome' | 'rule' | 'reason' | 'description' | 'errorCode' | 'holds' | 'drained' | 'rejected'
>;

/** What a decision on a message comes to, with the parked entries its drain applied and rejected. */
export function endingOf(decision: Decision, drain = { drained: 0, rejected: 0 }): Ending {
  const counts = { drained: drain.drained, rejected: drain.rejected };
  switch (decision.kind) {
    case 'deadLetter':
    case 'reject':
      return {
        outcome: ProcessOutcome.DeadLettered,
        rule: decision.rule,
        reason: decision.deadLetterReason,
        description: decision.reason.slice(0, MAX_DEAD_LETTER_DESCRIPTION),
        ...(decision.holds !== undefined && { holds: decision.holds }),
        ...counts,
      };
    case 'duplicate':
      return { outcome: ProcessOutcome.Duplicate, rule: decision.rule, ...counts };
    case 'park':
      return { outcome: ProcessOutcome.Parked, rule: 5, ...counts };
    case 'apply':
      return { outcome: ProcessOutcome.Applied, rule: 1, ...counts };
    case 'alert':
      throw new TypeError('an owed alert is no message decision');
  }
}

/** Counts the message's outcome and logs it (warn for a dead letter or an abandon). */
export function reportResult(telemetry: Telemetry, result: ProcessResult): void {
  const counter = {
    applied: CounterName.EntriesApplied,
    duplicate: CounterName.EntriesDuplicate,
    parked: CounterName.EntriesParked,
    deadLettered: CounterName.EntriesDeadLettered,
    abandoned: CounterName.EntriesAbandoned,
  }[result.outcome];
  telemetry.count(counter, result.reason ? { reason: result.reason } : undefined);
  const level =
    result.outcome === ProcessOutcome.DeadLettered || result.outcome === ProcessOutcome.Abandoned ? 'warn' : 'debug';
  telemetry.log(level, `entry ${result.outcome}`, { ...result });
}

/** The one place a message's ending becomes its settlement: complete, dead-letter (with its reason) or abandon. */
export async function settle(settlement: MessageSettlement, ending: Ending): Promise<void> {
  if (ending.outcome === ProcessOutcome.Abandoned) return settlement.abandon();
  if (ending.outcome === ProcessOutcome.DeadLettered) return settlement.deadLetter(ending.reason!, ending.description!);
  return settlement.complete();
}

/**
 * Whether the host should hand the session on (`releaseSession`) instead of idling `sessionIdleTimeout` on it: the
 * order is deleted after this message (its `OrderDeleted` applied now, directly or by the drain, or seen again: end of
 * sequence, nothing can follow), or the splitter marked the message as its order's last entry in that ledger.
 * Never for an abandoned message (the redelivery comes first), nor for one of another order than the session's.
 */
export function releaseAfter(
  ending: Ending,
  orderId: string | undefined,
  cache: OrderCache,
  message: ReceivedOrderMessage,
): ProcessResult['releaseSession'] {
  if (ending.outcome === ProcessOutcome.Abandoned) return undefined;
  // The cache holds the order as this message's last step left (or read) it; rule 6 read nothing of it.
  const deleted =
    ending.rule !== 6 && orderId !== undefined && cache.get(orderId)?.doc.state.status === OrderStatus.Deleted;
  if (deleted) return 'orderDeleted';
  return message.applicationProperties?.[HAND_OFF_PROPERTY] === true ? 'handOff' : undefined;
}

/** Logs why a message was abandoned (rule 8, or an unexpected failure) and makes it the message's end. */
export function abandoned(
  telemetry: Telemetry,
  error: unknown,
  keys: { orderId: string; entryId?: string; sequence?: number },
  message: string,
): Ending {
  const { code, description } = logFailure(telemetry, 'error', message, error, keys);
  return { outcome: ProcessOutcome.Abandoned, rule: 8, errorCode: code, description, drained: 0, rejected: 0 };
}

/** Logs a failure with the message's keys and the error's code; answers both. */
export function logFailure(
  telemetry: Telemetry,
  level: 'warn' | 'error',
  message: string,
  error: unknown,
  keys: { orderId: string; entryId?: string; sequence?: number },
): { code: string | undefined; description: string } {
  const { orderId, entryId, sequence } = keys;
  const code = errorCode(error);
  const description = errorMessage(error);
  telemetry.log(level, message, { orderId, entryId, sequence, code, description });
  return { code, description };
}
