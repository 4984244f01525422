/**
 * How the relay puts stored events behind a hold: one write of the marker under its ETag — created for a new hold,
 * or replaced with `heldThrough` raised and any newly refusing target's cursor — never a copy of an event. A lost
 * condition reads the marker again and goes on; a join that adds nothing (a replay) writes nothing.
 */
import type { OutboxHold } from '../documents/outboxHold.js';
import type { Clock } from '../ports/clock.js';
import type { Stored } from '../ports/orderStore.js';
import { holdRetryDelay, joinAdds, joinedHold, type HoldJoin } from './holdMarker.js';
import type { HoldBackoff } from './outboxConfig.js';
import { OutboxBatchError } from './outboxErrors.js';
import type { OutboxHoldStore } from './outboxPorts.js';

/** Conditional writes lost to other writers before the batch gives up (and is retried). */
const MAX_ROUNDS = 10;

/** What {@link joinHold} did. */
export type HoldJoined =
  /** The events are behind the hold; `created` when this call made the marker. */
  | { kind: 'held'; hold: Stored<OutboxHold>; created: boolean }
  /** The hold the events were to follow is gone (released or discarded meanwhile): deliver them instead. */
  | { kind: 'released' };

/** What {@link joinHold} needs. */
export interface HoldJoinDeps {
  holds: OutboxHoldStore;
  clock: Clock;
  backoff: HoldBackoff;
  random?: () => number;
}

/**
 * Puts `join` behind the hold of `orderId`, starting from `known` (the marker as this instance knows it). With an
 * error (a target just refused) a missing marker is created; without (the events only follow a hold), a hold found
 * gone ends the call with `released`.
 */
export async function joinHold(
  deps: HoldJoinDeps,
  orderId: string,
  known: Stored<OutboxHold> | undefined,
  join: HoldJoin,
): Promise<HoldJoined> {
  let current = known;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (current === undefined && join.error === undefined) return { kind: 'released' };
    if (current !== undefined && !joinAdds(current.doc, join)) return { kind: 'held', hold: current, created: false };
    const nowMs = deps.clock.now();
    const nextAttemptMs = nowMs + holdRetryDelay(0, deps.backoff, deps.random);
    const marker = joinedHold(orderId, current?.doc, join, { nowMs, nextAttemptMs });
    const written = await deps.holds.write(marker, current?.etag);
    if (written.kind === 'written')
      return { kind: 'held', hold: { doc: marker, etag: written.etag }, created: current === undefined };
    // Another writer got there first (a hold created or joined, released or discarded): read it again.
    current = await deps.holds.read(orderId);
  }
  throw new OutboxBatchError(`the hold of order ${orderId} kept changing under the relay`);
}
