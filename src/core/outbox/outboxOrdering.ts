/**
 * Per-order delivery order: a consumer of `order-events` applies each event as the order's absolute state, so an
 * order's records leave strictly by sequence. Only the lowest open (not `completed`) record of an order may be
 * claimed; a `failed` one holds its order until an operator retries it. The check is safe without a lock because
 * it is monotonic: records are created in sequence order (one per applied entry) and a `completed` record never
 * becomes open again, so once nothing below a record is open, nothing ever will be.
 */
import type { OutboxStatus } from '../documents/outboxRecord.js';
import { isClaimable } from './outboxDispatch.js';
import type { OutboxDispatchRecord } from './outboxRecordState.js';

/** What can be done for one order now. */
export type OrderDispatchDecision<T extends OutboxSummary = OutboxDispatchRecord> =
  /** No open record. */
  | { kind: 'idle' }
  /** The lowest open record can be claimed. */
  | { kind: 'claim'; record: T }
  /** The lowest open record is `failed`: the order waits for an operator. */
  | { kind: 'blocked'; record: T }
  /** The lowest open record is claimed under a live lease, or waits out its backoff. */
  | { kind: 'wait'; record: T };

/** The fields of an outbox record that the ordering decisions read (what the sweep's query selects). */
export type OutboxSummary = Pick<OutboxDispatchRecord, 'orderId' | 'entryId' | 'sequence' | 'status' | 'leaseUntil' | 'nextAttemptAt'> & {
  id: string;
  attempts: number;
};

/** Statuses of records still to deliver (or blocked). */
export const OPEN_OUTBOX_STATUSES: readonly OutboxStatus[] = ['pending', 'in-progress', 'failed'];

/** The decision for one order, given its open records in any order (completed ones are ignored). */
export function decideOrderDispatch<T extends OutboxSummary>(records: readonly T[], nowMs: number): OrderDispatchDecision<T> {
  let lowest: T | undefined;
  for (const r of records) if (r.status !== 'completed' && (lowest === undefined || r.sequence < lowest.sequence)) lowest = r;
  if (lowest === undefined) return { kind: 'idle' };
  if (lowest.status === 'failed') return { kind: 'blocked', record: lowest };
  return isClaimable(lowest, nowMs) ? { kind: 'claim', record: lowest } : { kind: 'wait', record: lowest };
}

/** What a sweep found across orders. */
export interface SweepPlan<T extends OutboxSummary> {
  /** Orders whose lowest open record is claimable now, by `orderId`. */
  due: string[];
  /** The `failed` record holding each blocked order, by `orderId`. */
  blocked: T[];
}

/** Groups open records by order and decides for each (the sweep's plan). */
export function planSweep<T extends OutboxSummary>(records: readonly T[], nowMs: number): SweepPlan<T> {
  const byOrder = new Map<string, T[]>();
  for (const r of records) {
    const list = byOrder.get(r.orderId);
    if (list) list.push(r);
    else byOrder.set(r.orderId, [r]);
  }
  const due: string[] = [];
  const blocked: T[] = [];
  for (const orderId of [...byOrder.keys()].sort()) {
    const decision = decideOrderDispatch(byOrder.get(orderId)!, nowMs);
    if (decision.kind === 'claim') due.push(orderId);
    else if (decision.kind === 'blocked') blocked.push(decision.record);
  }
  return { due, blocked };
}
