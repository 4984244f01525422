import { LRUCache } from 'lru-cache';
import type { OutboxTarget } from '../documents/outboxHold.js';

/**
 * The events each target acknowledged to this relay instance, most recent first kept. A batch the trigger
 * runs again in the same process — after a transport error, a hold that could not be read or written, or a lease
 * given up and taken back — then skips what a target already took instead of sending it twice. Another instance,
 * or this one after a restart, knows none of it and repeats the sends: those repeats carry the same `messageId` /
 * `Idempotency-Key`, as every replay does.
 */
export class Acknowledged {
  private readonly keys: LRUCache<string, true>;

  /** @param maxRecords acknowledgements kept, over both targets, least recently added dropped first (a few batches suffice). */
  constructor(maxRecords = 20_000) {
    this.keys = new LRUCache({ max: maxRecords });
  }

  // Keyed by order too: an entryId (and so a record id) is unique per order only.
  has(target: OutboxTarget, orderId: string, recordId: string): boolean {
    return this.keys.has(`${target} ${orderId} ${recordId}`);
  }

  add(target: OutboxTarget, orderId: string, recordIds: readonly string[]): void {
    for (const id of recordIds) this.keys.set(`${target} ${orderId} ${id}`, true);
  }
}
