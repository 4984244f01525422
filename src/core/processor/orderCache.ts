import { LRUCache } from 'lru-cache';
import type { OrderDocument } from '../documents/orderDocument.js';
import type { TransactionDocument } from '../documents/transactionDocument.js';
import type { CommitOutcome, OrderWrite, Stored } from '../ports/orderStore.js';
import { entryTypeOf, type Entry } from '../entryTypes/registry.js';

/**
 * The order documents (with ETags) a session last wrote or read, so an applied entry costs one store round trip:
 * the commit replaces the order under the cached ETag, and only a conflict sends the processor back to a read. The
 * transactions it last wrote or read are kept the same way, so an amendment of a transaction this instance has seen
 * replaces it under its cached ETag without reading it first; a stale one fails the write (412), is forgotten, and
 * is read again. The host keeps one per processor instance; the least recently used goes first beyond `max`.
 * Documents are never changed in place: every write builds a new one.
 */
export class OrderCache extends LRUCache<string, Stored<OrderDocument>> {
  private readonly transactions: LRUCache<string, Stored<TransactionDocument>>;

  /**
   * @param max how many orders to remember (a session normally has one). @default 64
   * @param maxTransactions how many transactions to remember, over all orders. @default 4 × max
   */
  constructor(max = 64, maxTransactions = 4 * max) {
    super({ max });
    this.transactions = new LRUCache({ max: maxTransactions });
  }

  /** The transaction `transactionId` of the order as last written or read, if remembered. */
  transaction(orderId: string, transactionId: string): Stored<TransactionDocument> | undefined {
    return this.transactions.get(transactionKey(orderId, transactionId));
  }

  rememberTransaction(stored: Stored<TransactionDocument>): void {
    this.transactions.set(transactionKey(stored.doc.orderId, stored.doc.transactionId), stored);
  }

  /**
   * Drops what is remembered of the entry's order (and of the transaction it reads), so the next round reads them.
   * Only a write that replaces a remembered document checks its ETag: a decision that writes neither must not rest
   * on them.
   */
  forgetEntry(entry: Entry): void {
    this.delete(entry.orderId);
    const transactionId = entryTypeOf(entry.type)?.reads?.(entry);
    if (transactionId !== undefined) this.forgetTransaction(entry.orderId, transactionId);
  }

  /**
   * Keeps what a commit of `write` left: on success the order and its transaction as written, under the ETags the
   * batch answered; after a changed order, an outcome that may or may not have committed, or a throw (`undefined`),
   * neither. A refusal that wrote nothing (the key seen, the transaction existing, a busy store) changes nothing.
   */
  afterCommit(orderId: string, write: OrderWrite, outcome: CommitOutcome | undefined): void {
    const transaction =
      write.transaction && ('create' in write.transaction ? write.transaction.create : write.transaction.replace.doc);
    if (outcome?.kind === 'committed') {
      this.set(orderId, { doc: write.order.doc, etag: outcome.orderEtag });
      if (!transaction) return;
      // Without the ETag the batch answered, what was remembered of the transaction is older than the write.
      if (outcome.transactionEtag !== undefined)
        this.rememberTransaction({ doc: transaction, etag: outcome.transactionEtag });
      else this.forgetTransaction(orderId, transaction.transactionId);
      return;
    }
    if (outcome === undefined || outcome.kind === 'orderChanged' || outcome.kind === 'unknown') {
      this.delete(orderId);
      if (transaction) this.forgetTransaction(orderId, transaction.transactionId);
    }
  }

  private forgetTransaction(orderId: string, transactionId: string): void {
    this.transactions.delete(transactionKey(orderId, transactionId));
  }
}

/** Order ids and transaction ids are free text: JSON of the pair cannot collide. */
function transactionKey(orderId: string, transactionId: string): string {
  return JSON.stringify([orderId, transactionId]);
}
