import { CoreErrorCode, StoreError } from '../../../src/core/errors.js';
import { ORDER_DOCUMENT_ID, transactionDocumentId } from '../../../src/core/documents/documentIds.js';
import type { AppliedEntryDocument } from '../../../src/core/documents/appliedEntryDocument.js';
import type { InboxRecord } from '../../../src/core/documents/inboxRecord.js';
import { checkedOrderDocument, type OrderDocument } from '../../../src/core/documents/orderDocument.js';
import type { GapAlertMark, ParkedEntryDocument } from '../../../src/core/documents/parkedEntryDocument.js';
import type { RejectedEntryDocument } from '../../../src/core/documents/rejectedEntryDocument.js';
import type { TransactionDocument } from '../../../src/core/documents/transactionDocument.js';
import { systemClock, type Clock } from '../../../src/core/ports/clock.js';
import type {
  CommitOutcome,
  GapStore,
  KeySeen,
  OrderContainerDocument,
  OrderStore,
  OrderWrite,
  Stored,
} from '../../../src/core/ports/orderStore.js';

/** A failure to inject into the next matching call(s). */
export interface InjectedFault {
  /** Which calls fail: point reads, commits, or both. */
  on: 'read' | 'commit' | 'any';
  /**
   * `transient`: a commit answers `transient` and a read throws `StoreTransient`, doing nothing. `outcomeUnknown`:
   * for a commit, write it and answer `unknown` (the reply was lost); for a read, like `transient`. `failed`: throw
   * `StoreFailed`.
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

/** Why a write stops, found while it is checked against the partition. */
type Refusal =
  | { kind: 'keySeen'; known: KeySeen; readInbox?: string; readApplied?: string }
  | { kind: 'orderChanged'; what: string }
  | { kind: 'transactionExists'; seen: KeySeen };

/**
 * An {@link OrderStore} in memory with Cosmos DB's semantics: per-partition documents, ETags that change on every
 * write, all-or-nothing writes, per-item `ttl` in seconds measured on the injected clock, and copies in and out so
 * callers cannot alias stored state. What a refused write learnt about the key is read back as the Cosmos DB store
 * does, one read each. Faults can be injected for retry tests.
 */
export class InMemoryOrderStore implements OrderStore, GapStore {
  private readonly partitions = new Map<string, Map<string, Item>>();
  private readonly faults: Required<InjectedFault>[] = [];
  private etagCounter = 0;
  /** Calls made, by kind (round trips). */
  readonly calls = { reads: 0, commits: 0 };

  /** @param clock drives TTL expiry. @default systemClock */
  constructor(private readonly clock: Clock = systemClock) {}

  async readOrder(orderId: string): Promise<Stored<OrderDocument> | undefined> {
    const stored = await this.read<OrderDocument>(orderId, ORDER_DOCUMENT_ID);
    return stored && { doc: checkedOrderDocument(stored.doc), etag: stored.etag };
  }

  async readTransaction(orderId: string, transactionId: string): Promise<Stored<TransactionDocument> | undefined> {
    const stored = await this.read<TransactionDocument>(orderId, transactionDocumentId(transactionId));
    return stored?.doc.transactionId === transactionId ? stored : undefined;
  }

  /** One query of the partition, counted as one read (as the Cosmos DB store's single-partition query). */
  async listTransactions(orderId: string): Promise<TransactionDocument[]> {
    this.calls.reads++;
    const fault = this.takeFault('read');
    if (fault)
      throw new StoreError(
        fault.kind === 'failed' ? CoreErrorCode.StoreFailed : CoreErrorCode.StoreTransient,
        `Injected ${fault.kind} failure`,
      );
    return [...this.live(orderId).values()]
      .map((item) => item.doc)
      .filter((doc): doc is TransactionDocument => doc.docType === 'transaction')
      .sort((a, b) => a.addedSequence - b.addedSequence)
      .map((doc) => structuredClone(doc));
  }

  readInbox(orderId: string, id: string): Promise<Stored<InboxRecord> | undefined> {
    return this.read<InboxRecord>(orderId, id);
  }

  readParked(orderId: string, id: string): Promise<Stored<ParkedEntryDocument> | undefined> {
    return this.read<ParkedEntryDocument>(orderId, id);
  }

  readRejected(orderId: string, id: string): Promise<Stored<RejectedEntryDocument> | undefined> {
    return this.read<RejectedEntryDocument>(orderId, id);
  }

  readApplied(orderId: string, id: string): Promise<Stored<AppliedEntryDocument> | undefined> {
    return this.read<AppliedEntryDocument>(orderId, id);
  }

  async commit(orderId: string, write: OrderWrite): Promise<CommitOutcome> {
    this.calls.commits++;
    const fault = this.takeFault('commit');
    if (fault?.kind === 'transient') return { kind: 'transient', reason: 'Injected transient failure' };
    if (fault?.kind === 'failed')
      throw new StoreError(CoreErrorCode.StoreFailed, 'Injected failed failure', { status: 500 });
    const foreign = documentsOf(write).find((doc) => doc.orderId !== orderId);
    if (foreign)
      throw new StoreError(
        CoreErrorCode.StoreFailed,
        `${foreign.id} belongs to partition ${foreign.orderId}, not ${orderId}`,
        { status: 400 },
      );
    const working = new Map(this.live(orderId));
    const refusal = this.apply(working, write);
    if (refusal?.kind === 'orderChanged' || refusal?.kind === 'transactionExists') return refusal;
    if (refusal) return { kind: 'keySeen', seen: await this.readBack(orderId, refusal) };
    this.partitions.set(orderId, working);
    if (fault) return { kind: 'unknown', reason: 'Injected outcomeUnknown failure' };
    const orderEtag = working.get(ORDER_DOCUMENT_ID)!.etag;
    const transaction =
      write.transaction && ('create' in write.transaction ? write.transaction.create : write.transaction.replace.doc);
    if (!transaction) return { kind: 'committed', orderEtag };
    return { kind: 'committed', orderEtag, transactionEtag: working.get(transaction.id)!.etag };
  }

  async ordersWaiting(): Promise<OrderDocument[]> {
    const orders: OrderDocument[] = [];
    for (const orderId of this.partitions.keys()) {
      const doc = this.live(orderId).get(ORDER_DOCUMENT_ID)?.doc as OrderDocument | undefined;
      if (doc && (doc.parked.length > 0 || doc.rejected.some((r) => !r.alerted)))
        orders.push(checkedOrderDocument(structuredClone(doc)));
    }
    return orders;
  }

  async markGapAlert(parked: Stored<ParkedEntryDocument>, mark: GapAlertMark): Promise<'marked' | 'changed'> {
    this.calls.commits++;
    const fault = this.takeFault('commit');
    if (fault)
      throw new StoreError(
        fault.kind === 'failed' ? CoreErrorCode.StoreFailed : CoreErrorCode.StoreTransient,
        `Injected ${fault.kind} failure`,
      );
    const partition = this.live(parked.doc.orderId);
    const current = partition.get(parked.doc.id);
    if (!current || current.etag !== parked.etag) return 'changed';
    partition.set(parked.doc.id, {
      doc: structuredClone({ ...parked.doc, gapAlert: mark }),
      etag: this.nextEtag(),
      writtenAt: this.clock.now(),
    });
    return 'marked';
  }

  /** Writes `doc` as is (created or replaced), bypassing every rule: a test's way to lay out stored state. @internal test hook */
  put(doc: OrderContainerDocument): void {
    const partition = this.partitions.get(doc.orderId) ?? new Map<string, Item>();
    partition.set(doc.id, { doc: structuredClone(doc), etag: this.nextEtag(), writtenAt: this.clock.now() });
    this.partitions.set(doc.orderId, partition);
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

  /** Applies `write` to `docs` in the order the Cosmos DB batch runs it; the first refusal stops it. */
  private apply(docs: Map<string, Item>, write: OrderWrite): Refusal | undefined {
    const put = (doc: OrderContainerDocument) =>
      docs.set(doc.id, { doc: structuredClone(doc), etag: this.nextEtag(), writtenAt: this.clock.now() });
    const unchanged = (stored: Stored<OrderContainerDocument>) => docs.get(stored.doc.id)?.etag === stored.etag;
    const { inbox, parked, applied, order, transaction, rejected, outbox } = write;
    const createdInbox = inbox !== undefined && 'create' in inbox;
    if (inbox && 'create' in inbox) {
      if (docs.has(inbox.create.id)) return { kind: 'keySeen', known: {}, readInbox: inbox.create.id };
      put(inbox.create);
    } else if (inbox && 'upsert' in inbox) {
      put(inbox.upsert);
    } else if (inbox) {
      if (!unchanged(inbox.delete)) return { kind: 'orderChanged', what: `inbox record ${inbox.delete.doc.id}` };
      docs.delete(inbox.delete.doc.id);
    }
    if (parked && 'create' in parked) {
      if (docs.has(parked.create.id)) return { kind: 'orderChanged', what: `parked entry ${parked.create.sequence}` };
      put(parked.create);
    } else if (parked) {
      if (!unchanged(parked.delete))
        return { kind: 'orderChanged', what: `parked entry ${parked.delete.doc.sequence}` };
      docs.delete(parked.delete.doc.id);
    }
    if (applied) {
      if (docs.has(applied.id))
        return { kind: 'keySeen', known: createdInbox ? { inbox: null } : {}, readApplied: applied.id };
      put(applied);
    }
    const current = docs.get(ORDER_DOCUMENT_ID);
    if (order.etag === undefined ? current !== undefined : current?.etag !== order.etag)
      return { kind: 'orderChanged', what: 'order document' };
    put(order.doc);
    if (transaction && 'create' in transaction) {
      // After the order's ETag held: the order as read has this transaction (rule 7); no key of the entry exists.
      if (docs.has(transaction.create.id))
        return {
          kind: 'transactionExists',
          seen: { ...(createdInbox && { inbox: null }), ...(applied && { applied: null }) },
        };
      put(transaction.create);
    } else if (transaction) {
      if (!unchanged(transaction.replace))
        return { kind: 'orderChanged', what: `transaction ${transaction.replace.doc.transactionId}` };
      put(transaction.replace.doc);
    }
    if (rejected && 'upsert' in rejected) {
      put(rejected.upsert);
    } else if (rejected) {
      // As Cosmos DB: after the order's replace held, a missing document fails the write (see `CosmosOrderStore`).
      if (!docs.delete(rejected.delete.id))
        throw new StoreError(
          CoreErrorCode.StoreFailed,
          `Order ${order.doc.orderId} lists a rejected entry whose document ${rejected.delete.id} is missing`,
          { status: 404 },
        );
    }
    if (outbox) {
      if (docs.has(outbox.id)) return { kind: 'orderChanged', what: 'outbox record' };
      put(outbox);
    }
    return undefined;
  }

  /** Reads back the record a refused write met, one read as the Cosmos DB store costs (gone meanwhile: `null`). */
  private async readBack(orderId: string, refusal: Extract<Refusal, { kind: 'keySeen' }>): Promise<KeySeen> {
    const seen: KeySeen = { ...refusal.known };
    if (refusal.readInbox !== undefined) seen.inbox = (await this.readInbox(orderId, refusal.readInbox)) ?? null;
    if (refusal.readApplied !== undefined)
      seen.applied = (await this.readApplied(orderId, refusal.readApplied))?.doc ?? null;
    return seen;
  }

  private async read<T extends OrderContainerDocument>(orderId: string, id: string): Promise<Stored<T> | undefined> {
    this.calls.reads++;
    const fault = this.takeFault('read');
    if (fault) {
      const code = fault.kind === 'failed' ? CoreErrorCode.StoreFailed : CoreErrorCode.StoreTransient;
      throw new StoreError(code, `Injected ${fault.kind === 'failed' ? 'failed' : 'transient'} failure`, {
        status: fault.kind === 'failed' ? 500 : 503,
      });
    }
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

/** Every document a write puts or removes (a rejected entry's document is deleted by id alone, in the write's partition). */
function documentsOf(write: OrderWrite): OrderContainerDocument[] {
  const { inbox, parked, applied, order, transaction, rejected, outbox } = write;
  const inboxDoc = inbox && ('create' in inbox ? inbox.create : 'upsert' in inbox ? inbox.upsert : inbox.delete.doc);
  const parkedDoc = parked && ('create' in parked ? parked.create : parked.delete.doc);
  const rejectedDoc = rejected && 'upsert' in rejected ? rejected.upsert : undefined;
  const transactionDoc = transaction && ('create' in transaction ? transaction.create : transaction.replace.doc);
  return [inboxDoc, parkedDoc, applied, order.doc, transactionDoc, rejectedDoc, outbox].filter(
    (doc): doc is OrderContainerDocument => doc !== undefined,
  );
}
