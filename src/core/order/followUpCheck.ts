import type { OrderDocument, ParkedRecord, RejectedRecord } from '../documents/orderDocument.js';
import { OrderStatus } from './orderState.js';

/**
 * What is due on the order after its messages — what `OrderProcessor.drain(orderId)` has to do, and so what the gap
 * timer looks for, in-memory, on a document it has read anyway (the order's session may be idle for good): the parked
 * entry whose turn has come (applied or rejected), else the oldest `ParkedEntryRejected` alert still owed; `undefined`
 * when nothing is. A parked entry's turn has come at `lastSequence + 1`; on a deleted order, the lowest parked one's
 * has, since nothing may follow `OrderDeleted` and every entry parked behind it must be rejected (rules 7, 11).
 */
export function dueOn(
  doc: OrderDocument,
): { kind: 'parked'; parked: ParkedRecord } | { kind: 'alert'; rejected: RejectedRecord } | undefined {
  const next = doc.parked.find((p) => p.sequence === doc.lastSequence + 1);
  const lowest = (low: ParkedRecord | undefined, p: ParkedRecord) => (low && low.sequence < p.sequence ? low : p);
  const parked = next ?? (doc.state.status === OrderStatus.Deleted ? doc.parked.reduce(lowest, undefined) : undefined);
  if (parked) return { kind: 'parked', parked };
  const rejected = doc.rejected.find((r) => !r.alerted);
  return rejected && { kind: 'alert', rejected };
}
