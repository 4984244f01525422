/**
 * An operator's release of an order's hold (`convoy outbox retry`): the held records go, in sequence order, to the
 * targets each still owes (`order-events` in one send, then the webhook one by one), then the hold is deleted
 * under the ETag it was read with. If the relay appended records meanwhile, the delete loses: the hold is read
 * again and its new records are delivered before the next delete. Once the hold is gone the relay sends the
 * order's later records itself, so every record reaches each target at least once and in order across a release.
 */
import type { HeldOutboxRecord } from '../documents/outboxHold.js';
import { OutboxTarget } from '../documents/outboxHold.js';
import { OutboxBatchError } from './outboxErrors.js';
import type { OrderEventSender, OrderEventWebhook, OutboxHoldStore } from './outboxPorts.js';
import { outboundEvent } from './outboxRelay.js';

/** What {@link releaseHold} needs. */
export interface HoldReleaseDeps {
  holds: OutboxHoldStore;
  sender: OrderEventSender;
  /** Required when a held record still owes the webhook. */
  webhook?: OrderEventWebhook;
  /** Bounds each send. @default 30000 */
  timeoutMs?: number;
}

/** What a release did. */
export interface HoldReleaseReport {
  orderId: string;
  /** `false` when the order had no hold. */
  released: boolean;
  /** Deliveries made, per target. */
  delivered: Record<OutboxTarget, number>;
  /** Times the hold changed under the release and was read again. */
  rounds: number;
}

/** Rounds a release tries before giving up on a hold that keeps growing. */
const MAX_ROUNDS = 20;

/** Releases the hold of `orderId`; rejects (leaving the hold in place) when a target fails. */
export async function releaseHold(deps: HoldReleaseDeps, orderId: string): Promise<HoldReleaseReport> {
  const report: HoldReleaseReport = { orderId, released: false, delivered: { 'order-events': 0, webhook: 0 }, rounds: 0 };
  // Records delivered by this release, per target: a later round delivers only what was appended since.
  const done = { 'order-events': new Set<string>(), webhook: new Set<string>() };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const stored = await deps.holds.read(orderId);
    if (stored === undefined) return report;
    report.rounds = round + 1;
    await deliver(deps, stored.doc.records, OutboxTarget.OrderEvents, done, report);
    await deliver(deps, stored.doc.records, OutboxTarget.Webhook, done, report);
    const deleted = await deps.holds.delete(orderId, stored.etag);
    if (deleted !== 'changed') {
      report.released = true;
      return report;
    }
  }
  throw new OutboxBatchError(`the hold of order ${orderId} kept changing during ${MAX_ROUNDS} release rounds; run the release again`);
}

async function deliver(
  deps: HoldReleaseDeps,
  records: readonly HeldOutboxRecord[],
  target: OutboxTarget,
  done: Record<OutboxTarget, Set<string>>,
  report: HoldReleaseReport,
): Promise<void> {
  const owed = records.filter((r) => r.pendingTargets.includes(target) && !done[target].has(r.id)).sort((a, b) => a.sequence - b.sequence);
  if (owed.length === 0) return;
  const signal = AbortSignal.timeout(deps.timeoutMs ?? 30_000);
  if (target === OutboxTarget.OrderEvents) {
    await deps.sender.send(owed.map(outboundEvent), signal);
  } else {
    if (deps.webhook === undefined) throw new OutboxBatchError(`order ${owed[0]!.orderId} owes the webhook ${owed.length} record(s), but OUTBOX_WEBHOOK_URL is not set`);
    for (const record of owed) await deps.webhook.post(outboundEvent(record), signal);
  }
  for (const record of owed) done[target].add(record.id);
  report.delivered[target] += owed.length;
}
