import type { OutboxDiscardRecord } from '../../../src/core/documents/outboxDiscardRecord.js';
import type { OutboxHold } from '../../../src/core/documents/outboxHold.js';
import { storedEvent, type StoredEvent } from '../../../src/core/documents/entryRecord.js';
import type { Stored } from '../../../src/core/ports/orderStore.js';
import type { HoldWrite, OutboxHoldStore } from '../../../src/core/outbox/outboxPorts.js';

/**
 * An {@link OutboxHoldStore} in memory with Cosmos DB's semantics: a new ETag per marker write, a create of an
 * existing marker or a write under a stale ETag or of a gone marker lost. The order's stored events are what a test
 * {@link commit}s (the processor's batches). Counts its requests; `failReads` makes reads throw, as a store outage
 * would; `beforeEnd` lets a test race another writer just before a release ends a hold.
 */
export class InMemoryHoldStore implements OutboxHoldStore {
  private readonly markers = new Map<string, Stored<OutboxHold>>();
  private readonly events = new Map<string, Map<number, StoredEvent>>();
  private etags = 0;
  /** Audit records of discards, in the order written. */
  readonly discards: OutboxDiscardRecord[] = [];
  /** Requests served, by kind. */
  readonly requests = { read: 0, write: 0, end: 0, storedEvents: 0, list: 0 };
  /** When set, reads throw it. */
  failReads: Error | undefined;
  /** Runs before each marker end (a test relays there to race a release). */
  beforeEnd: ((orderId: string) => Promise<void>) | undefined;

  async read(orderId: string): Promise<Stored<OutboxHold> | undefined> {
    this.requests.read++;
    if (this.failReads) throw this.failReads;
    const stored = this.markers.get(orderId);
    return stored && structuredClone(stored);
  }

  async write(marker: OutboxHold, etag: string | undefined): Promise<HoldWrite> {
    this.requests.write++;
    const stored = this.markers.get(marker.orderId);
    if (etag === undefined ? stored !== undefined : stored?.etag !== etag) return { kind: 'lost' };
    return { kind: 'written', etag: this.put(marker) };
  }

  async end(orderId: string, etag: string): Promise<HoldWrite> {
    await this.beforeEnd?.(orderId);
    this.requests.end++;
    if (this.markers.get(orderId)?.etag !== etag) return { kind: 'lost' };
    this.markers.delete(orderId);
    return { kind: 'written', etag: '' };
  }

  async storedEvents(orderId: string, after: number, through: number, max: number): Promise<StoredEvent[]> {
    this.requests.storedEvents++;
    return [...(this.events.get(orderId)?.values() ?? [])]
      .filter((e) => e.sequence > after && e.sequence <= through)
      .sort((a, b) => a.sequence - b.sequence)
      .slice(0, max)
      .map((e) => structuredClone(e));
  }

  async list(): Promise<Stored<OutboxHold>[]> {
    this.requests.list++;
    return [...this.markers.values()].map((s) => structuredClone(s));
  }

  async recordDiscard(record: OutboxDiscardRecord): Promise<void> {
    if (this.discards.some((d) => d.orderId === record.orderId && d.id === record.id))
      throw Object.assign(new Error(`${record.id} exists`), { status: 409 });
    this.discards.push(structuredClone(record));
  }

  /** Stores applied entries' events, as the processor's batches do before the relay sees them. */
  commit(...records: StoredEvent[]): void {
    for (const record of records) {
      let events = this.events.get(record.orderId);
      if (events === undefined) this.events.set(record.orderId, (events = new Map()));
      events.set(record.sequence, storedEvent(record));
    }
  }

  /** Puts a marker as stored; returns its ETag. */
  seed(marker: OutboxHold): string {
    return this.put(marker);
  }

  /** Every marker, by order. */
  all(): OutboxHold[] {
    return [...this.markers.values()]
      .map((s) => structuredClone(s.doc))
      .sort((a, b) => (a.orderId < b.orderId ? -1 : 1));
  }

  private put(marker: OutboxHold): string {
    const etag = `"hold-${++this.etags}"`;
    this.markers.set(marker.orderId, { doc: structuredClone(marker), etag });
    return etag;
  }
}
