import { LRUCache } from 'lru-cache';
import type { OrderDocument } from '../documents/orderDocument.js';
import type { TransactionDocument } from '../documents/transactionDocument.js';
import type { Stored } from '../ports/orderStore.js';

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

  forgetTransaction(orderId: string, transactionId: string): void {
    this.transactions.delete(transactionKey(orderId, transactionId));
  }
}

/** Order ids and transaction ids are free text: JSON of the pair cannot collide. */
function transactionKey(orderId: string, transactionId: string): string {
  return JSON.stringify([orderId, transactionId]);
}
