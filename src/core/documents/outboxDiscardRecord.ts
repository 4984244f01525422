import type { OutboxTarget } from './outboxHold.js';

/**
 * The audit record of an operator's `convoy outbox discard` (`id = outbox-discard:<heldThrough>:<ms>`, in the
 * order's partition, no TTL): which held records were dropped without reaching which targets, by whom and why.
 */
export interface OutboxDiscardRecord {
  id: string;
  docType: 'outbox-discard';
  orderId: string;
  reason: string;
  /** Who discarded (the operator's name as the CLI knows it). */
  by: string;
  discardedAt: string;
  /** The held records dropped, by sequence, with the targets each never reached. */
  records: { sequence: number; entryId: string; messageId: string; pendingTargets: OutboxTarget[] }[];
}
