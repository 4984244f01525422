import { LRUCache } from 'lru-cache';
import type { OrderDocument } from '../documents/orderDocument.js';
import type { Stored } from '../ports/orderStore.js';

/**
 * The order documents (with ETags) a session last wrote or read, so an applied entry costs one store round trip:
 * the commit replaces the order under the cached ETag, and only a conflict sends the processor back to a read. The
 * host keeps one per processor instance; the least recently used order goes first beyond `max`. Documents are
 * never changed in place: every write builds a new one.
 */
export class OrderCache extends LRUCache<string, Stored<OrderDocument>> {
  /** @param max how many orders to remember (a session normally has one). @default 64 */
  constructor(max = 64) {
    super({ max });
  }
}
