/**
 * The pure part of holds: the marker as it is created, appended to, claimed, failed and woken, and the held copy of
 * an outbox record. Every write of a marker goes under its ETag (see `OutboxHoldStore`); these only say what to write.
 */
import { outboxHeldRecordId, outboxHoldId } from '../documents/documentIds.js';
import type { OutboxHeldRecord } from '../documents/outboxHeldRecord.js';
import { OutboxTarget, type OutboxHold } from '../documents/outboxHold.js';
import { storedEvent, type StoredEvent } from '../documents/entryRecord.js';
import { backoffDelay } from '../retry.js';

/** How a hold's releases back off (`OUTBOX_HOLD_RETRY_FIRST`, `OUTBOX_HOLD_RETRY_MAX`). */
export interface HoldBackoff {
  /** Delay before the first release; doubles after each failed one. @default 60000 */
  firstMs: number;
  /** Longest delay between releases. @default 3600000 */
  maxMs: number;
}

/** The delay before release `attempt` (0 = the first): doubling from `firstMs` up to `maxMs`, half of it jitter. */
export function holdRetryDelay(attempt: number, backoff: HoldBackoff, random?: () => number): number {
  return backoffDelay(attempt, { baseDelayMs: backoff.firstMs, maxDelayMs: backoff.maxMs, random });
}

/** A held copy of the stored event `record` owing `pendingTargets` (in delivery order). */
export function heldCopy(record: StoredEvent, pendingTargets: Iterable<OutboxTarget>): OutboxHeldRecord {
  const copy = storedEvent(record);
  return {
    id: outboxHeldRecordId(copy.entryId),
    docType: 'outbox-held',
    orderId: copy.orderId,
    sequence: copy.sequence,
    pendingTargets: inDeliveryOrder(pendingTargets),
    record: copy,
  };
}

/** A new marker for `orderId`, holding `first`; its first release is due after {@link holdRetryDelay}(0). */
export function newHold(
  orderId: string,
  first: OutboxHeldRecord,
  at: { nowMs: number; error: string; nextAttemptMs: number },
): OutboxHold {
  const now = iso(at.nowMs);
  return {
    id: outboxHoldId(orderId),
    docType: 'outbox-hold',
    orderId,
    version: 2,
    targets: first.pendingTargets,
    heldThrough: first.sequence,
    since: now,
    nextAttempt: iso(at.nextAttemptMs),
    attempts: 0,
    lastError: at.error,
    updatedAt: now,
  };
}

/** `hold` with `record` appended: `heldThrough` raised, its targets added; the rest (a claim too) kept. */
export function appendedHold(hold: OutboxHold, record: OutboxHeldRecord, nowMs: number, error?: string): OutboxHold {
  return {
    ...hold,
    targets: inDeliveryOrder([...hold.targets, ...record.pendingTargets]),
    heldThrough: Math.max(hold.heldThrough, record.sequence),
    lastError: error ?? hold.lastError,
    updatedAt: iso(nowMs),
  };
}

/** `hold` claimed by a release until `untilMs`. */
export function claimedHold(hold: OutboxHold, nowMs: number, untilMs: number): OutboxHold {
  return { ...hold, releasingUntil: iso(untilMs), updatedAt: iso(nowMs) };
}

/** `hold` after a failed release: one more attempt counted, the next one due at `nextAttemptMs`, the claim dropped. */
export function failedHold(hold: OutboxHold, at: { nowMs: number; error: string; nextAttemptMs: number }): OutboxHold {
  const { releasingUntil: _claim, ...rest } = hold;
  return {
    ...rest,
    attempts: hold.attempts + 1,
    nextAttempt: iso(at.nextAttemptMs),
    lastError: at.error,
    updatedAt: iso(at.nowMs),
  };
}

/** `hold` handed back by a release that ran out of its claim's time: due again at once, its attempts unchanged. */
export function pausedHold(hold: OutboxHold, nowMs: number): OutboxHold {
  const { releasingUntil: _claim, ...rest } = hold;
  return { ...rest, nextAttempt: iso(nowMs), updatedAt: iso(nowMs) };
}

/** `hold` due at `atMs` (a webhook delivery woke it). */
export function wokenHold(hold: OutboxHold, nowMs: number, atMs: number): OutboxHold {
  return { ...hold, nextAttempt: iso(atMs), updatedAt: iso(nowMs) };
}

/** Whether a release of `hold` may start at `nowMs`: its next attempt has come and no release holds a claim. */
export function isDue(hold: OutboxHold, nowMs: number): boolean {
  return Date.parse(hold.nextAttempt) <= nowMs && !isClaimed(hold, nowMs);
}

/** Whether a release's claim on `hold` still runs at `nowMs`. */
export function isClaimed(hold: OutboxHold, nowMs: number): boolean {
  return hold.releasingUntil !== undefined && Date.parse(hold.releasingUntil) > nowMs;
}

/** What `GET /api/orders/{orderId}` shows of a hold: `records` counts the records still held. */
export interface HoldView {
  targets: OutboxTarget[];
  since: string;
  records: number;
  nextAttempt: string;
}

/** The order view's `hold`, from the marker and the number of held-record documents. */
export function holdView(hold: OutboxHold, heldDocuments: number): HoldView {
  return { targets: hold.targets, since: hold.since, records: heldDocuments, nextAttempt: hold.nextAttempt };
}

/** `targets` once each, `order-events` before `webhook`. */
function inDeliveryOrder(targets: Iterable<OutboxTarget>): OutboxTarget[] {
  const set = new Set(targets);
  return Object.values(OutboxTarget).filter((t) => set.has(t));
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
