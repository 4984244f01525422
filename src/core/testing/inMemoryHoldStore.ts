import type { OutboxHold } from '../documents/outboxHold.js';
import type { Stored } from '../ports/orderStore.js';
import type { HoldWriteLost, OutboxHoldStore } from '../outbox/outboxPorts.js';

/**
 * An {@link OutboxHoldStore} in memory with Cosmos DB's conditional-write semantics (a new ETag per write, 409 on
 * create of an existing hold, 412 on a stale ETag, 404 when gone). Counts its requests; `failReads` makes reads
 * throw, as a store outage would.
 */
export class InMemoryHoldStore implements OutboxHoldStore {
  private readonly holds = new Map<string, Stored<OutboxHold>>();
  private etags = 0;
  /** Requests served, by kind. */
  readonly requests = { read: 0, create: 0, replace: 0, delete: 0 };
  /** When set, reads throw it. */
  failReads: Error | undefined;
  /** Runs before each delete (a test appends there to race a release). */
  beforeDelete: ((orderId: string) => Promise<void>) | undefined;

  async read(orderId: string): Promise<Stored<OutboxHold> | undefined> {
    this.requests.read++;
    if (this.failReads) throw this.failReads;
    const stored = this.holds.get(orderId);
    return stored && structuredClone(stored);
  }

  async create(hold: OutboxHold): Promise<string | 'changed'> {
    this.requests.create++;
    if (this.holds.has(hold.orderId)) return 'changed';
    return this.put(hold);
  }

  async replace(hold: OutboxHold, etag: string): Promise<string | HoldWriteLost> {
    this.requests.replace++;
    const stored = this.holds.get(hold.orderId);
    if (stored === undefined) return 'missing';
    if (stored.etag !== etag) return 'changed';
    return this.put(hold);
  }

  async delete(orderId: string, etag: string): Promise<'deleted' | HoldWriteLost> {
    await this.beforeDelete?.(orderId);
    this.requests.delete++;
    const stored = this.holds.get(orderId);
    if (stored === undefined) return 'missing';
    if (stored.etag !== etag) return 'changed';
    this.holds.delete(orderId);
    return 'deleted';
  }

  /** Every hold, by order. */
  all(): OutboxHold[] {
    return [...this.holds.values()].map((s) => structuredClone(s.doc)).sort((a, b) => (a.orderId < b.orderId ? -1 : 1));
  }

  private put(hold: OutboxHold): string {
    const etag = `"hold-${++this.etags}"`;
    this.holds.set(hold.orderId, { doc: structuredClone(hold), etag });
    return etag;
  }
}
