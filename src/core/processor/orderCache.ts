import type { OrderDocument } from '../documents/orderDocument.js';
import type { Stored } from '../ports/orderStore.js';

/**
 * The order documents (with ETags) a session has last written or read, so an applied entry costs one store round
 * trip: the commit replaces the order under the cached ETag, and only a 412 sends us back to a read. The host
 * keeps one per session (or per processor instance); entries are dropped oldest first beyond `maxOrders`.
 * Documents are never mutated in place: planners build new ones.
 */
export class OrderCache {
  private readonly entries = new Map<string, Stored<OrderDocument>>();

  /** @param maxOrders how many orders to remember (a session normally has one). @default 64 */
  constructor(private readonly maxOrders = 64) {}

  get(orderId: string): Stored<OrderDocument> | undefined {
    return this.entries.get(orderId);
  }

  remember(orderId: string, doc: OrderDocument, etag: string): void {
    this.entries.delete(orderId);
    this.entries.set(orderId, { doc, etag });
    if (this.entries.size > this.maxOrders) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  forget(orderId: string): void {
    this.entries.delete(orderId);
  }
}
