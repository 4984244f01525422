/**
 * The pure part of holds: the marker as it is created or joined, claimed, failed and paused, and what the order view
 * shows of it. Every write of a marker goes under its ETag (see `OutboxHoldStore`); these only say what to write.
 */
import { outboxHoldId } from '../documents/documentIds.js';
import { OutboxTarget, type OutboxHold } from '../documents/outboxHold.js';
import { backoffDelay } from '../retry.js';
import type { HoldBackoff } from './outboxConfig.js';

/** The delay before release `attempt` (0 = the first): doubling from `firstMs` up to `maxMs`, half of it jitter. */
export function holdRetryDelay(attempt: number, backoff: HoldBackoff, random?: () => number): number {
  return backoffDelay(attempt, { baseDelayMs: backoff.firstMs, maxDelayMs: backoff.maxMs, random });
}

/** Per target, the sequence it has every event through. */
export type Cursors = Partial<Record<OutboxTarget, number>>;

/** What a relay puts behind a hold: the stored events through `through`, owed from each cursor of `owed` on. */
export interface HoldJoin {
  /** Per target that refused or must wait, the sequence it has every event through. */
  owed: Cursors;
  through: number;
  /** The failure that made a target refuse; none when the events only follow a hold. */
  error?: string;
}

/** Whether `join` changes `hold`: a target or an event it does not hold yet (a replay changes nothing). */
export function joinAdds(hold: OutboxHold, join: HoldJoin): boolean {
  return join.through > hold.heldThrough || Object.keys(join.owed).some((t) => !(t in hold.deliveredThrough));
}

/** `hold` with `join` behind it, or a new hold of `join` whose first release is due at `nextAttemptMs`. */
export function joinedHold(
  orderId: string,
  hold: OutboxHold | undefined,
  join: HoldJoin,
  at: { nowMs: number; nextAttemptMs: number },
): OutboxHold {
  const now = iso(at.nowMs);
  const base: OutboxHold = hold ?? {
    id: outboxHoldId(orderId),
    docType: 'outbox-hold',
    orderId,
    version: 3,
    targets: [],
    deliveredThrough: {},
    heldThrough: 0,
    since: now,
    nextAttempt: iso(at.nextAttemptMs),
    attempts: 0,
    lastError: join.error ?? '',
    updatedAt: now,
  };
  // A target held already keeps its cursor: what a release delivered since this relay read the marker stays delivered.
  const deliveredThrough: Cursors = { ...join.owed, ...base.deliveredThrough };
  return {
    ...base,
    targets: Object.values(OutboxTarget).filter((t) => t in deliveredThrough), // `order-events` first
    deliveredThrough,
    heldThrough: Math.max(base.heldThrough, join.through),
    lastError: join.error ?? base.lastError,
    updatedAt: now,
  };
}

/** `hold` claimed by a release until `untilMs`. */
export function claimedHold(hold: OutboxHold, nowMs: number, untilMs: number): OutboxHold {
  return { ...hold, releasingUntil: iso(untilMs), updatedAt: iso(nowMs) };
}

/**
 * `hold` handed back by a release that got its held targets through `cursors`, the claim dropped: after a failure
 * one more attempt counted and the next one due at `nextAttemptMs`; after a pause (no `error`) due at once.
 */
export function handedBackHold(
  hold: OutboxHold,
  cursors: Cursors,
  at: { nowMs: number; error?: string; nextAttemptMs?: number },
): OutboxHold {
  const { releasingUntil: _claim, ...rest } = hold;
  const deliveredThrough: Cursors = { ...hold.deliveredThrough };
  for (const t of hold.targets) deliveredThrough[t] = Math.max(deliveredThrough[t]!, cursors[t] ?? -Infinity);
  return {
    ...rest,
    deliveredThrough,
    ...(at.error !== undefined && { attempts: hold.attempts + 1, lastError: at.error }),
    nextAttempt: iso(at.nextAttemptMs ?? at.nowMs),
    updatedAt: iso(at.nowMs),
  };
}

/** Whether a release of `hold` may start at `nowMs`: its next attempt has come and no release holds a claim. */
export function isDue(hold: OutboxHold, nowMs: number): boolean {
  return Date.parse(hold.nextAttempt) <= nowMs && !isClaimed(hold, nowMs);
}

/** Whether a release's claim on `hold` still runs at `nowMs`. */
export function isClaimed(hold: OutboxHold, nowMs: number): boolean {
  return hold.releasingUntil !== undefined && Date.parse(hold.releasingUntil) > nowMs;
}

/**
 * What `GET /api/orders/{orderId}` shows of a hold; `records`: the events not yet delivered to the target furthest
 * behind (applied sequences have no gaps).
 */
export type HoldView = Pick<OutboxHold, 'targets' | 'since' | 'nextAttempt'> & { records: number };

/** The order view's `hold`, from the marker alone. */
export function holdView(hold: OutboxHold): HoldView {
  return { targets: hold.targets, since: hold.since, records: heldRecords(hold), nextAttempt: hold.nextAttempt };
}

/** How many stored events the target furthest behind still waits for. */
export function heldRecords(hold: OutboxHold): number {
  return hold.heldThrough - Math.min(...hold.targets.map((t) => hold.deliveredThrough[t]!));
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
