import type { Transaction } from '../order/orderState.js';

/**
 * One transaction of an order (`id = txn:` + the first 32 hex digits of SHA-256 over the UTF-8 of its
 * `transactionId`, see `transactionDocumentId`), in the order's partition, no `ttl`. Created by the batch that applies
 * its `TransactionAdded` (a 409 there means the `transactionId` exists: rule 7), replaced under its ETag by the batch
 * of each entry that changes it (an entry type's transition, such as `TransactionAmended`'s). The order document keeps only their count and total, so neither it nor an event grows
 * with the order.
 */
export interface TransactionDocument extends Transaction {
  id: string;
  docType: 'transaction';
  orderId: string;
  /** Sequence of the `TransactionAdded` that created it: the GET view lists transactions in this order. */
  addedSequence: number;
}
