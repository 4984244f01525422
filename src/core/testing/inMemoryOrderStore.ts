import { CoreErrorCode, StoreError, type StoreErrorCode } from '../errors.js';
import { ORDER_DOCUMENT_ID } from '../documents/documentIds.js';
import type { AppliedEntryDocument } from '../documents/appliedEntryDocument.js';
import type { InboxRecord } from '../documents/inboxRecord.js';
import type { OrderDocument } from '../documents/orderDocument.js';
import type { ParkedEntryDocument } from '../documents/parkedEntryDocument.js';
import { systemClock, type Clock } from '../ports/clock.js';
import { assertCommitShape, type CommitResult, type OrderContainerDocument, type OrderStore, type StoreOperation, type Stored } from '../ports/orderStore.js';

/** A failure to inject into the next matching call(s). */
export interface InjectedFault {
  /** Which calls fail: point reads, commits, or both. */
  on: 'read' | 'commit' | 'any';
  /**
   * `transient`: throw `StoreTransient` without doing anything. `outcomeUnknown`: for a commit, apply it and then
   * throw `StoreOutcomeUnknown` (the reply was lost); for a read, like `transient`. `failed`: throw `StoreFailed`.
   */
  kind: 'transient' | 'outcomeUnknown' | 'failed';
  /** How many matching calls fail. @default 1 */
  times?: number;
  /** How many matching calls succeed first. @default 0 */
  skip?: number;
}

interface Item {
  doc: OrderContainerDocument;
  etag: string;
  writtenAt: number;
}

/**
 * An {@link OrderStore} in memory with Cosmos DB's semantics: per-partition documents, ETags that change on every
 * write, all-or-nothing commits reporting the first failing operation (404/409/412), per-item `ttl` in seconds
 * measured on the injected clock, and copies in and out so callers cannot alias stored state. Faults can be
 * injected for retry tests.
 */
export class InMemoryOrderStore implements OrderStore {
  private readonly partitions = new Map<string, Map<string, Item>>();
  private readonly faults: Required<InjectedFault>[] = [];
  private etagCounter = 0;
  /** Calls made, by kind (round trips). */
  readonly calls = { reads: 0, commits: 0 };

  /** @param clock drives TTL expiry. @default systemClock */
  constructor(private readonly clock: Clock = systemClock) {}

  readOrder(orderId: string): Promise<Stored<OrderDocument> | undefined> {
    return this.read<OrderDocument>(orderId, ORDER_DOCUMENT_ID);
  }

  readInbox(orderId: string, id: string): Promise<Stored<InboxRecord> | undefined> {
    return this.read<InboxRecord>(orderId, id);
  }

  readParked(orderId: string, id: string): Promise<Stored<ParkedEntryDocument> | undefined> {
    return this.read<ParkedEntryDocument>(orderId, id);
  }

  readApplied(orderId: string, id: string): Promise<Stored<AppliedEntryDocument> | undefined> {
    return this.read<AppliedEntryDocument>(orderId, id);
  }

  async commit(orderId: string, operations: readonly StoreOperation[]): Promise<CommitResult> {
    this.calls.commits++;
    const fault = this.takeFault('commit');
    if (fault && fault.kind !== 'outcomeUnknown') throw faultError(fault.kind);
    assertCommitShape(orderId, operations);
    const working = new Map(this.live(orderId));
    const etags: (string | undefined)[] = [];
    for (const [index, op] of operations.entries()) {
      const id = op.kind === 'delete' ? op.id : op.doc.id;
      const existing = working.get(id);
      const status = conflictOf(op, existing);
      if (status !== undefined) return { ok: false, failedIndex: index, status };
      if (op.kind === 'delete') {
        working.delete(id);
        etags.push(undefined);
      } else {
        const etag = this.nextEtag();
        working.set(id, { doc: structuredClone(op.doc), etag, writtenAt: this.clock.now() });
        etags.push(etag);
      }
    }
    this.partitions.set(orderId, working);
    if (fault) throw faultError('outcomeUnknown');
    return { ok: true, etags };
  }

  /** Makes the next matching call(s) fail. @internal test hook */
  injectFault(fault: InjectedFault): void {
    this.faults.push({ times: 1, skip: 0, ...fault });
  }

  /** Drops every injected fault not yet spent (the store "recovers"). @internal test hook */
  clearFaults(): void {
    this.faults.length = 0;
  }

  /** Every live document of an order, by id (copies). @internal test hook */
  documents(orderId: string): Map<string, OrderContainerDocument> {
    return new Map([...this.live(orderId)].map(([id, item]) => [id, structuredClone(item.doc)]));
  }

  /** Removes a document as if its TTL had expired. @internal test hook */
  expire(orderId: string, id: string): void {
    this.partitions.get(orderId)?.delete(id);
  }

  private async read<T extends OrderContainerDocument>(orderId: string, id: string): Promise<Stored<T> | undefined> {
    this.calls.reads++;
    const fault = this.takeFault('read');
    if (fault) throw faultError(fault.kind === 'failed' ? 'failed' : 'transient');
    const item = this.live(orderId).get(id);
    return item ? { doc: structuredClone(item.doc) as T, etag: item.etag } : undefined;
  }

  /** The partition without expired items (Cosmos stops serving an item once its TTL has passed). */
  private live(orderId: string): Map<string, Item> {
    const partition = this.partitions.get(orderId);
    if (!partition) return new Map();
    const now = this.clock.now();
    for (const [id, item] of partition) {
      const ttl = (item.doc as { ttl?: unknown }).ttl;
      if (typeof ttl === 'number' && ttl > 0 && now >= item.writtenAt + ttl * 1000) partition.delete(id);
    }
    return partition;
  }

  private takeFault(call: 'read' | 'commit'): Required<InjectedFault> | undefined {
    const index = this.faults.findIndex((f) => f.on === call || f.on === 'any');
    const fault = this.faults[index];
    if (!fault) return undefined;
    if (fault.skip > 0) {
      fault.skip--;
      return undefined;
    }
    if (--fault.times <= 0) this.faults.splice(index, 1);
    return fault;
  }

  private nextEtag(): string {
    this.etagCounter++;
    return `"${this.etagCounter.toString(16).padStart(8, '0')}"`;
  }
}

function conflictOf(op: StoreOperation, existing: Item | undefined): 404 | 409 | 412 | undefined {
  switch (op.kind) {
    case 'create':
      return existing ? 409 : undefined;
    case 'upsert':
      return undefined;
    case 'replace':
    case 'delete':
      if (!existing) return 404;
      return op.ifMatch !== undefined && op.ifMatch !== existing.etag ? 412 : undefined;
  }
}

function faultError(kind: InjectedFault['kind']): StoreError {
  const code: StoreErrorCode = {
    transient: CoreErrorCode.StoreTransient,
    outcomeUnknown: CoreErrorCode.StoreOutcomeUnknown,
    failed: CoreErrorCode.StoreFailed,
  }[kind];
  const status = { transient: 503, outcomeUnknown: 408, failed: 500 }[kind];
  return new StoreError(code, `Injected ${kind} failure`, { status });
}
