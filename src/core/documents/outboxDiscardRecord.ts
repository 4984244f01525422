import type { OutboxTarget } from './outboxHold.js';

/**
 * The audit record of an operator's `convoy outbox discard` (`id = outbox-discard:<heldThrough>:<ms>`, in the
 * order's partition, no TTL): which stored events never reached which targets, by whom and why. It names ranges of
 * sequences, so it stays small whatever the hold held.
 */
export interface OutboxDiscardRecord {
  id: string;
  docType: 'outbox-discard';
  orderId: string;
  reason: string;
  /** Who discarded (the operator's name as the CLI knows it). */
  by: string;
  discardedAt: string;
  /** Per target, the stored events it was owed and will not get: sequences `after` + 1 through `through`. */
  undelivered: { target: OutboxTarget; after: number; through: number }[];
}
