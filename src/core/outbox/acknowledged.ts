import type { OutboxTarget } from '../documents/outboxHold.js';

/**
 * The outbox records each target acknowledged to this relay instance, most recent first kept. A batch the trigger
 * runs again in the same process — after a transport error, a hold that could not be read, every order of it
 * failing, or a lease given up and taken back — then skips what a target already took instead of sending it
 * twice. Another instance, or this one after a restart, knows none of it and repeats the sends: those repeats
 * carry the same `messageId` / `Idempotency-Key`, as every replay does.
 */
export class Acknowledged {
  private readonly keys = new Set<string>();

  /** @param maxRecords acknowledgements kept, over both targets, oldest dropped first (a few batches suffice). */
  constructor(private readonly maxRecords = 20_000) {}

  // Keyed by order too: an entryId (and so a record id) is unique per order only.
  has(target: OutboxTarget, orderId: string, recordId: string): boolean {
    return this.keys.has(`${target} ${orderId} ${recordId}`);
  }

  add(target: OutboxTarget, orderId: string, recordIds: readonly string[]): void {
    for (const id of recordIds) {
      const key = `${target} ${orderId} ${id}`;
      this.keys.delete(key);
      this.keys.add(key);
    }
    for (const oldest of this.keys) {
      if (this.keys.size <= this.maxRecords) break;
      this.keys.delete(oldest);
    }
  }
}
