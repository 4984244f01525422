import type { OrderDocument, ParkedRecord, RejectedRecord } from '../documents/orderDocument.js';
import { OrderStatus } from './orderState.js';

/**
 * The parked sequence due now, if any: `lastSequence + 1` when it is parked; on a deleted order, the lowest parked
 * one, since nothing may follow `OrderDeleted` and every entry parked behind it must be rejected (rules 7, 11).
 */
function nextDueSequence(doc: OrderDocument): number | undefined {
  const next = doc.parked.find((p) => p.sequence === doc.lastSequence + 1);
  if (next) return next.sequence;
  if (doc.state.status !== OrderStatus.Deleted) return undefined;
  return doc.parked.reduce<number | undefined>(
    (lowest, p) => (lowest === undefined || p.sequence < lowest ? p.sequence : lowest),
    undefined,
  );
}

/**
 * For the gap timer: whether `OrderProcessor.drain(orderId)` has work on this order — a parked entry that is due
 * (its session may be idle for good) or a `ParkedEntryRejected` alert still owed. In-memory, on a document the
 * timer has read anyway.
 */
export function orderNeedsFollowUp(doc: OrderDocument): boolean {
  return nextDueSequence(doc) !== undefined || doc.rejected.some((r) => !r.alerted);
}

/**
 * What is due on the order after its messages: the parked entry whose turn has come (applied or rejected), else the
 * oldest `ParkedEntryRejected` alert still owed; `undefined` when nothing is.
 */
export function dueOn(
  doc: OrderDocument,
): { kind: 'parked'; parked: ParkedRecord } | { kind: 'alert'; rejected: RejectedRecord } | undefined {
  const sequence = nextDueSequence(doc);
  const parked = sequence === undefined ? undefined : doc.parked.find((p) => p.sequence === sequence);
  if (parked) return { kind: 'parked', parked };
  const rejected = doc.rejected.find((r) => !r.alerted);
  return rejected && { kind: 'alert', rejected };
}
