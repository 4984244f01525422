/**
 * How the relay writes holds: each held record is one transactional batch — create the held record, and create the
 * marker (a new hold) or replace it under its ETag, raising `heldThrough`. A lost condition reads the marker again
 * and goes on; a record at or below `heldThrough` is held already (a replay) and appends nothing.
 */
import type { OutboxHeldRecord } from '../documents/outboxHeldRecord.js';
import type { OutboxHold } from '../documents/outboxHold.js';
import type { Clock } from '../ports/clock.js';
import type { Stored } from '../ports/orderStore.js';
import { appendedHold, holdRetryDelay, newHold, type HoldBackoff } from './holdMarker.js';
import { OutboxBatchError } from './outboxErrors.js';
import type { OutboxHoldStore } from './outboxPorts.js';

/** Conditional writes lost to other writers, per record, before the batch gives up (and is retried). */
const MAX_ROUNDS = 10;

/** What {@link HoldWriter.hold} did. */
export type HoldWritten =
  /** Every record is held; `created` when this call made the marker. */
  | { kind: 'held'; hold: Stored<OutboxHold>; created: boolean; appended: number }
  /**
   * The hold the records were to join is gone (released or discarded meanwhile) and nothing failed: the records
   * from `from` on are to be delivered instead (those before it were appended in time for the release).
   */
  | { kind: 'released'; from: number; appended: number };

/** Writes held records and their marker for the relay. */
export class HoldWriter {
  constructor(
    private readonly deps: { holds: OutboxHoldStore; clock: Clock; backoff: HoldBackoff; random?: () => number },
  ) {}

  /**
   * Holds `records` (ascending by sequence, each with the targets it owes) for `orderId`, joining `known` (the
   * marker as this instance knows it, or `undefined`). With `error` (a target just failed) a missing marker is
   * created; without (the records only follow a hold), a hold found gone ends the call with `released`.
   */
  async hold(
    orderId: string,
    known: Stored<OutboxHold> | undefined,
    records: readonly OutboxHeldRecord[],
    error?: string,
  ): Promise<HoldWritten> {
    let current = known;
    let created = false;
    let appended = 0;
    for (const [index, record] of records.entries()) {
      for (let round = 0; ; round++) {
        if (round >= MAX_ROUNDS)
          throw new OutboxBatchError(`the hold of order ${orderId} kept changing under the relay`);
        if (current === undefined && error === undefined) return { kind: 'released', from: index, appended };
        if (current !== undefined && record.sequence <= current.doc.heldThrough) break; // held already: a replay
        const now = this.deps.clock.now();
        const marker =
          current === undefined
            ? newHold(orderId, record, {
                nowMs: now,
                error: error!,
                nextAttemptMs: now + holdRetryDelay(0, this.deps.backoff, this.deps.random),
              })
            : appendedHold(current.doc, record, now, error);
        const written = await this.deps.holds.append(marker, current?.etag, record);
        if (written.kind === 'written') {
          created ||= current === undefined;
          current = { doc: marker, etag: written.etag };
          appended++;
          break;
        }
        // Another writer got there first (a hold created or appended to, released or discarded): read it again.
        current = await this.read(orderId);
      }
    }
    if (current === undefined)
      throw new OutboxBatchError(`order ${orderId} has no hold after holding ${records.length} record(s)`);
    return { kind: 'held', hold: current, created, appended };
  }

  /** The order's marker, if any. */
  async read(orderId: string): Promise<Stored<OutboxHold> | undefined> {
    const stored = await this.deps.holds.read(orderId);
    return stored;
  }
}
