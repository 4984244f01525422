/**
 * The outbox dispatcher's decisions, one per phase of a record's life (pure; the dispatcher writes the results
 * under the record's ETag):
 *
 *     pending ──claim──▶ in-progress ──complete──▶ completed (expires after its TTL)
 *        ▲                   │  └── lease lapses: claimable again, same idempotency key
 *        └──── fail (backoff)┤
 *                            └── fail, attempts spent ──▶ failed ──operator retry──▶ pending
 */
import type { OutboxDispatchRecord, DeliveryReceipt } from './outboxRecordState.js';

export { orderEventMessage, type OrderEventBody, type OrderEventMessage } from './orderEvent.js';

/** Options of the outbox decisions (resolved by `resolveOutboxConfig`). */
export interface OutboxDispatchOptions {
  /** How long a claim holds. @default 60000 */
  leaseMs: number;
  /** Attempts before a record is marked `failed` (and `OutboxFailed` raised). @default 10 */
  maxAttempts: number;
  /** Delay after the first failed attempt; doubles with each further one. @default 1000 */
  backoffBaseMs: number;
  /** Longest delay between attempts. @default 300000 */
  backoffMaxMs: number;
  /** Life of a completed record, in seconds. @default 604800 (7 days) */
  completedTtlSeconds: number;
}

/** True when `record` may be claimed at `nowMs`, looking at the record alone (per-order order is checked apart). */
export function isClaimable(record: Pick<OutboxDispatchRecord, 'status' | 'leaseUntil' | 'nextAttemptAt'>, nowMs: number): boolean {
  if (record.status === 'pending') return record.nextAttemptAt === undefined || Date.parse(record.nextAttemptAt) <= nowMs;
  // A lapsed lease means its dispatcher died or stalled mid-send; the send may have happened, which the
  // idempotency key makes harmless downstream.
  if (record.status === 'in-progress') return record.leaseUntil === undefined || Date.parse(record.leaseUntil) <= nowMs;
  return false;
}

/**
 * Phase one: claims a claimable record (see {@link isClaimable}) with a lease of `leaseMs`, counting the
 * attempt. Returns the record to write back under its ETag, or `undefined` if it is not claimable now.
 */
export function claimOutboxRecord(record: OutboxDispatchRecord, options: { leaseMs: number; nowMs: number }): OutboxDispatchRecord | undefined {
  if (!isClaimable(record, options.nowMs)) return undefined;
  const { nextAttemptAt: _next, ...rest } = record;
  return { ...rest, status: 'in-progress', attempts: record.attempts + 1, leaseUntil: new Date(options.nowMs + options.leaseMs).toISOString() };
}

/** Phase two: every target took the record. It now expires after `ttlSeconds`. */
export function completeOutboxRecord(
  record: OutboxDispatchRecord,
  outcome: { nowMs: number; ttlSeconds: number; result: DeliveryReceipt[] },
): OutboxDispatchRecord {
  const { leaseUntil: _lease, nextAttemptAt: _next, delivered: _delivered, ...rest } = record;
  return { ...rest, status: 'completed', completedAt: new Date(outcome.nowMs).toISOString(), result: outcome.result, ttl: outcome.ttlSeconds };
}

/** Delay before the attempt after `attempts` failed ones: `base × 2^(attempts − 1)`, at most `max`. */
export function outboxBackoffMs(attempts: number, options: Pick<OutboxDispatchOptions, 'backoffBaseMs' | 'backoffMaxMs'>): number {
  const exponent = Math.max(0, attempts - 1);
  // 2^exponent overflows to Infinity long after it passed any sane maximum; Math.min settles it.
  return Math.min(options.backoffMaxMs, options.backoffBaseMs * 2 ** exponent);
}

/** What a failed attempt did. */
export interface FailedAttempt {
  error: string;
  nowMs: number;
  /** Targets that took the record in this attempt before another one failed. @default [] */
  delivered?: readonly string[];
}

/**
 * A delivery attempt failed: back to `pending` with `nextAttemptAt` after an exponential backoff, or `failed`
 * once `maxAttempts` are spent (the caller raises `OutboxFailed`; the record stays, blocking its order's later
 * records, until an operator retries it).
 */
export function failOutboxRecord(
  record: OutboxDispatchRecord,
  attempt: FailedAttempt,
  options: Pick<OutboxDispatchOptions, 'maxAttempts' | 'backoffBaseMs' | 'backoffMaxMs'>,
): { record: OutboxDispatchRecord; exhausted: boolean } {
  const { leaseUntil: _lease, nextAttemptAt: _next, ...rest } = record;
  const delivered = [...new Set([...(record.delivered ?? []), ...(attempt.delivered ?? [])])];
  const base = { ...rest, lastError: attempt.error, ...(delivered.length > 0 && { delivered }) };
  if (record.attempts >= options.maxAttempts) {
    return { record: { ...base, status: 'failed', failedAt: new Date(attempt.nowMs).toISOString() }, exhausted: true };
  }
  const nextAttemptAt = new Date(attempt.nowMs + outboxBackoffMs(record.attempts, options)).toISOString();
  return { record: { ...base, status: 'pending', nextAttemptAt }, exhausted: false };
}

/**
 * An operator's retry of a `failed` record: `pending` again with its attempts reset, due at once. Targets that
 * already took it are still skipped. Returns `undefined` for a record that is not `failed`.
 */
export function retryOutboxRecord(record: OutboxDispatchRecord): OutboxDispatchRecord | undefined {
  if (record.status !== 'failed') return undefined;
  const { failedAt: _failed, nextAttemptAt: _next, leaseUntil: _lease, ...rest } = record;
  return { ...rest, status: 'pending', attempts: 0 };
}
