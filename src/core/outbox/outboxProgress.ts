/**
 * What a dispatcher knows about each order's delivery without asking the store: the sequence through which the
 * order's records are all `completed`. It lets the fast path claim the record the processor just created without
 * the partition query that the per-order ordering rule otherwise needs.
 *
 * Why the knowledge stays true with no lock and with other dispatchers at work:
 * - An order's records have the sequences 1, 2, 3, … with no gap: each one is created in the batch that applies
 *   its entry at `lastSequence + 1`. So "nothing below n is open" is "1 … n − 1 are all `completed`", and for
 *   n = 1 it holds with no knowledge at all.
 * - A `completed` record never becomes open again (an operator's retry only takes a `failed` one back to
 *   `pending`), so once learnt, the fact never goes stale; other dispatchers can only make it more true.
 * - It is learnt only from a completion this dispatcher made of an order's lowest open record. A failed attempt,
 *   a `failed` record, a lost claim teach nothing, so the position never passes a record still to deliver.
 */
export class OutboxProgress {
  private readonly through = new Map<string, number>();

  /** @param maxOrders how many orders to remember, least recently used dropped first. @default 4096 */
  constructor(private readonly maxOrders = 4096) {}

  /** The sequence through which every record of `orderId` is known `completed` (0 when nothing is known). */
  completedThrough(orderId: string): number {
    return this.through.get(orderId) ?? 0;
  }

  /**
   * Records that this dispatcher completed `sequence` while it was the order's lowest open record: every record
   * up to it is now `completed`.
   */
  completed(orderId: string, sequence: number): void {
    const known = Math.max(sequence, this.completedThrough(orderId));
    this.through.delete(orderId);
    this.through.set(orderId, known);
    if (this.through.size > this.maxOrders) this.through.delete(this.through.keys().next().value!);
  }
}
