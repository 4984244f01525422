/**
 * An operator's discard of an order's hold (`convoy outbox discard --reason`): the held records are dropped without
 * reaching the targets they owe. The release's claim is taken first (no release runs meanwhile), an audit record is
 * written in the order's partition, the held records are deleted, then the marker under its ETag — when the relay
 * appended meanwhile, those records are discarded too, under another audit record. `OutboxDiscarded` is raised.
 * The relay then sends the order's later records as they come.
 */
import { outboxDiscardId } from '../documents/documentIds.js';
import type { OutboxDiscardRecord } from '../documents/outboxDiscardRecord.js';
import type { OutboxHeldRecord } from '../documents/outboxHeldRecord.js';
import { systemClock, type Clock } from '../ports/clock.js';
import { AlertName, type Telemetry } from '../ports/telemetry.js';
import { claim, readHold, ReleaseOutcome } from './holdRelease.js';
import { OutboxHoldError } from './outboxErrors.js';
import type { OutboxHoldStore } from './outboxPorts.js';

/** What {@link discardHold} needs. */
export interface HoldDiscardDeps {
  holds: OutboxHoldStore;
  telemetry: Telemetry;
  /** @default systemClock */
  clock?: Clock;
}

/** What a discard did. */
export interface HoldDiscardReport {
  orderId: string;
  /** `discarded`, or why nothing was: `no-hold`, `busy` (a release holds the claim). */
  outcome: 'discarded' | typeof ReleaseOutcome.NoHold | typeof ReleaseOutcome.Busy;
  /** Held records dropped. */
  records: number;
  /** The audit records written. */
  audits: string[];
  detail?: string;
}

/** Rounds of a marker that keeps changing (the relay appending) before the discard gives up. */
const MAX_ROUNDS = 20;

/** Discards the hold of `orderId` for `reason`, as `by`. */
export async function discardHold(
  deps: HoldDiscardDeps,
  orderId: string,
  why: { reason: string; by: string },
): Promise<HoldDiscardReport> {
  const clock = deps.clock ?? systemClock;
  const report: HoldDiscardReport = { orderId, outcome: ReleaseOutcome.NoHold, records: 0, audits: [] };
  if (why.reason.trim() === '') throw new TypeError('discardHold: a reason is required');
  let current = await claim(deps.holds, orderId, clock, report);
  let first: OutboxHeldRecord | undefined;
  const dropped = new Set<string>();
  for (let round = 0; current !== undefined; round++) {
    if (round >= MAX_ROUNDS)
      throw new OutboxHoldError(
        `the hold of order ${orderId} kept changing during ${MAX_ROUNDS} discard rounds; run the discard again`,
      );
    const documents = await deps.holds.heldRecords(orderId);
    const held = documents.filter((r) => !dropped.has(r.id)).sort((a, b) => a.sequence - b.sequence);
    if (held.length > 0) {
      const now = clock.now();
      const audit: OutboxDiscardRecord = {
        id: outboxDiscardId(current.doc.heldThrough, now),
        docType: 'outbox-discard',
        orderId,
        reason: why.reason,
        by: why.by,
        discardedAt: new Date(now).toISOString(),
        records: held.map((r) => ({
          sequence: r.sequence,
          entryId: r.record.entryId,
          messageId: r.record.key,
          pendingTargets: r.pendingTargets,
        })),
      };
      await deps.holds.recordDiscard(audit);
      report.audits.push(audit.id);
      report.records += held.length;
      first ??= held[0];
      for (const record of held) dropped.add(record.id);
      for (const record of documents) await deps.holds.deleteHeld(orderId, record.id);
    }
    const deleted = await deps.holds.delete(orderId, current.etag);
    if (deleted !== 'changed') {
      report.outcome = 'discarded';
      break;
    }
    current = await readHold(deps.holds, orderId);
  }
  if (report.outcome === 'discarded') {
    deps.telemetry.alert(AlertName.OutboxDiscarded, {
      orderId,
      entryId: first?.record.entryId ?? '',
      sequence: first?.sequence,
      records: report.records,
      reason: why.reason,
      by: why.by,
      audits: report.audits,
    });
  }
  return report;
}
