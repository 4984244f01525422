import { CoreErrorCode, StoreError } from '../../../src/core/errors.js';
import { ORDER_DOCUMENT_ID, transactionDocumentId } from '../../../src/core/documents/documentIds.js';
import type { EntryRecord, GapAlertMark, ParkedEntryRecord } from '../../../src/core/documents/entryRecord.js';
import { checkedOrderDocument, type OrderDocument } from '../../../src/core/documents/orderDocument.js';
import type { TransactionDocument } from '../../../src/core/documents/transactionDocument.js';
import { systemClock, type Clock } from '../../../src/core/ports/clock.js';
import type {
  CommitOutcome,
  GapStore,
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
   * `StoreFailed`. `throttled`: like `transient`, as a store refusing for its throughput budget (Cosmos 429) does,
   * with `retryAfterMs`.
   */
  kind: 'transient' | 'outcomeUnknown' | 'failed' | 'throttled';
  /** For `throttled`: the store's hint. @default 1000 */
  retryAfterMs?: number;
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
type Refusal = { kind: 'keySeen'; id: string } | { kind: 'orderChanged'; what: string } | { kind: 'transactionExists' };

/**
 * An {@link OrderStore} in memory with Cosmos DB's semantics: per-partition documents, ETags that change on every
 * write, all-or-nothing writes (no document of an order expires), and copies in and out so
 * callers cannot alias stored state. The record a refused create met is read back as the Cosmos DB store does, one
 * read. Faults can be injected for retry tests.
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

  readEntry(orderId: string, id: string): Promise<Stored<EntryRecord> | undefined> {
    return this.read<EntryRecord>(orderId, id);
  }

  async commit(orderId: string, write: OrderWrite): Promise<CommitOutcome> {
    this.calls.commits++;
    const fault = this.takeFault('commit');
    if (fault?.kind === 'transient') return { kind: 'transient', reason: 'Injected transient failure' };
    if (fault?.kind === 'throttled')
      return { kind: 'transient', reason: 'Injected throttling', retryAfterMs: fault.retryAfterMs, throttled: true };
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
    if (refusal) return { kind: 'keySeen', record: (await this.readEntry(orderId, refusal.id)) ?? null };
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

  async markGapAlert(parked: Stored<ParkedEntryRecord>, mark: GapAlertMark): Promise<'marked' | 'changed'> {
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
    this.faults.push({ times: 1, skip: 0, retryAfterMs: 1_000, ...fault });
  }

  /** Drops every injected fault not yet spent (the store "recovers"). @internal test hook */
  clearFaults(): void {
    this.faults.length = 0;
  }

  /** Every live document of an order, by id (copies). @internal test hook */
  documents(orderId: string): Map<string, OrderContainerDocument> {
    return new Map([...this.live(orderId)].map(([id, item]) => [id, structuredClone(item.doc)]));
  }

  /** Removes a document, as a damaged store would. @internal test hook */
  expire(orderId: string, id: string): void {
    this.partitions.get(orderId)?.delete(id);
  }

  /** Applies `write` to `docs` in the order the Cosmos DB batch runs it; the first refusal stops it. */
  private apply(docs: Map<string, Item>, write: OrderWrite): Refusal | undefined {
    const put = (doc: OrderContainerDocument) =>
      docs.set(doc.id, { doc: structuredClone(doc), etag: this.nextEtag(), writtenAt: this.clock.now() });
    const unchanged = (stored: Stored<OrderContainerDocument>) => docs.get(stored.doc.id)?.etag === stored.etag;
    const { entry, order, transaction } = write;
    if (entry && 'create' in entry) {
      if (docs.has(entry.create.id)) return { kind: 'keySeen', id: entry.create.id };
      put(entry.create);
    } else if (entry) {
      if (!unchanged(entry.replace)) return { kind: 'orderChanged', what: `entry record ${entry.replace.doc.id}` };
      put(entry.replace.doc);
    }
    const current = docs.get(ORDER_DOCUMENT_ID);
    if (order.etag === undefined ? current !== undefined : current?.etag !== order.etag)
      return { kind: 'orderChanged', what: 'order document' };
    put(order.doc);
    if (transaction && 'create' in transaction) {
      // After the order's ETag held: the order as read has this transaction (rule 7).
      if (docs.has(transaction.create.id)) return { kind: 'transactionExists' };
      put(transaction.create);
    } else if (transaction) {
      if (!unchanged(transaction.replace))
        return { kind: 'orderChanged', what: `transaction ${transaction.replace.doc.transactionId}` };
      put(transaction.replace.doc);
    }
    return undefined;
  }

  private async read<T extends OrderContainerDocument>(orderId: string, id: string): Promise<Stored<T> | undefined> {
    this.calls.reads++;
    const fault = this.takeFault('read');
    if (fault) {
      if (fault.kind === 'throttled')
        throw new StoreError(CoreErrorCode.StoreTransient, 'Injected throttling', {
          status: 429,
          retryAfterMs: fault.retryAfterMs,
          throttled: true,
        });
      const code = fault.kind === 'failed' ? CoreErrorCode.StoreFailed : CoreErrorCode.StoreTransient;
      throw new StoreError(code, `Injected ${fault.kind === 'failed' ? 'failed' : 'transient'} failure`, {
        status: fault.kind === 'failed' ? 500 : 503,
      });
    }
    const item = this.live(orderId).get(id);
    return item ? { doc: structuredClone(item.doc) as T, etag: item.etag } : undefined;
  }

  private live(orderId: string): Map<string, Item> {
    return this.partitions.get(orderId) ?? new Map();
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

/** Every document a write puts. */
function documentsOf(write: OrderWrite): OrderContainerDocument[] {
  const { entry, order, transaction } = write;
  const entryDoc = entry && ('create' in entry ? entry.create : entry.replace.doc);
  const transactionDoc = transaction && ('create' in transaction ? transaction.create : transaction.replace.doc);
  return [entryDoc, order.doc, transactionDoc].filter((doc): doc is OrderContainerDocument => doc !== undefined);
}
