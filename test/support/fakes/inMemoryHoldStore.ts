import type { OutboxDiscardRecord } from '../../../src/core/documents/outboxDiscardRecord.js';
import type { OutboxHeldRecord } from '../../../src/core/documents/outboxHeldRecord.js';
import type { OutboxHold } from '../../../src/core/documents/outboxHold.js';
import type { Stored } from '../../../src/core/ports/orderStore.js';
import type { HoldAppendResult, HoldWriteLost, OutboxHoldStore } from '../../../src/core/outbox/outboxPorts.js';

/** Cosmos DB's largest document (2 MB): a write of a larger one is refused, as the service refuses it (413). */
const MAX_DOCUMENT_BYTES = 2 * 1024 * 1024;

/**
 * An {@link OutboxHoldStore} in memory with Cosmos DB's semantics: a new ETag per marker write, 409 on a create of an
 * existing marker or held record, 412 on a stale ETag, 404 when gone, an append all or nothing, documents of at
 * most 2 MB. Counts its requests; `failReads` makes reads throw, as a store outage would; the `before*` hooks let a
 * test race another writer at a chosen point.
 */
export class InMemoryHoldStore implements OutboxHoldStore {
  private readonly markers = new Map<string, Stored<OutboxHold>>();
  private readonly held = new Map<string, Map<string, OutboxHeldRecord>>();
  private etags = 0;
  /** Audit records of discards, in the order written. */
  readonly discards: OutboxDiscardRecord[] = [];
  /** Requests served, by kind. */
  readonly requests = { read: 0, append: 0, replace: 0, delete: 0, heldRecords: 0, putHeld: 0, deleteHeld: 0, list: 0 };
  /** When set, reads throw it. */
  failReads: Error | undefined;
  /** Runs before each marker delete (a test appends there to race a release). */
  beforeDelete: ((orderId: string) => Promise<void>) | undefined;
  /** Runs before each held-record delete. */
  beforeDeleteHeld: ((orderId: string, id: string) => Promise<void>) | undefined;

  async read(orderId: string): Promise<Stored<OutboxHold> | undefined> {
    this.requests.read++;
    if (this.failReads) throw this.failReads;
    const stored = this.markers.get(orderId);
    return stored && structuredClone(stored);
  }

  async append(marker: OutboxHold, etag: string | undefined, record: OutboxHeldRecord): Promise<HoldAppendResult> {
    this.requests.append++;
    const stored = this.markers.get(marker.orderId);
    if (etag === undefined && stored !== undefined) return { kind: 'exists' };
    if (this.heldOf(marker.orderId).has(record.id)) return { kind: 'alreadyHeld' };
    if (etag !== undefined && stored === undefined) return { kind: 'missing' };
    if (etag !== undefined && stored!.etag !== etag) return { kind: 'changed' };
    sizeChecked(record);
    this.heldOf(marker.orderId).set(record.id, structuredClone(record));
    return { kind: 'written', etag: this.put(marker) };
  }

  async replace(marker: OutboxHold, etag: string): Promise<string | HoldWriteLost> {
    this.requests.replace++;
    const stored = this.markers.get(marker.orderId);
    if (stored === undefined) return 'missing';
    if (stored.etag !== etag) return 'changed';
    return this.put(marker);
  }

  async delete(orderId: string, etag: string): Promise<'deleted' | HoldWriteLost> {
    await this.beforeDelete?.(orderId);
    this.requests.delete++;
    const stored = this.markers.get(orderId);
    if (stored === undefined) return 'missing';
    if (stored.etag !== etag) return 'changed';
    this.markers.delete(orderId);
    return 'deleted';
  }

  async heldRecords(orderId: string): Promise<OutboxHeldRecord[]> {
    this.requests.heldRecords++;
    return [...this.heldOf(orderId).values()].map((r) => structuredClone(r)).sort((a, b) => a.sequence - b.sequence);
  }

  async putHeld(record: OutboxHeldRecord): Promise<void> {
    this.requests.putHeld++;
    this.heldOf(record.orderId).set(record.id, structuredClone(sizeChecked(record)));
  }

  async deleteHeld(orderId: string, id: string): Promise<void> {
    await this.beforeDeleteHeld?.(orderId, id);
    this.requests.deleteHeld++;
    this.heldOf(orderId).delete(id);
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

  /** The held records of `orderId`, ascending by sequence (no request counted). */
  heldOf(orderId: string): Map<string, OutboxHeldRecord> {
    let held = this.held.get(orderId);
    if (held === undefined) this.held.set(orderId, (held = new Map()));
    return held;
  }

  private put(marker: OutboxHold): string {
    sizeChecked(marker);
    const etag = `"hold-${++this.etags}"`;
    this.markers.set(marker.orderId, { doc: structuredClone(marker), etag });
    return etag;
  }
}

function sizeChecked<T>(doc: T): T {
  const bytes = new TextEncoder().encode(JSON.stringify(doc)).length;
  if (bytes > MAX_DOCUMENT_BYTES)
    throw Object.assign(new Error(`a document of ${bytes} bytes is over Cosmos DB's 2 MB`), {
      code: 'StoreFailed',
      status: 413,
    });
  return doc;
}
