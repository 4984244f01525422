/**
 * Ids of the documents in the `orders` container (partition key `/orderId`). All of an order's documents share
 * its partition, so one transactional batch can write any mix of them. Ids use `:` as separator: `entryId` is
 * limited to `[A-Za-z0-9._-]`, so the prefixes cannot collide.
 */
import { createHash } from 'node:crypto';

/** The single order document of a partition. */
export const ORDER_DOCUMENT_ID = 'order';

/**
 * An entry's record id (see `EntryRecord`): consumer name + `entryId`, so independent consumers sharing the container
 * never block each other. One per `entryId`, kept for good.
 */
export function entryRecordId(consumer: string, entryId: string): string {
  return `entry:${consumer}:${entryId}`;
}

/**
 * A transaction's document id (see `TransactionDocument`): `txn:` + the first 32 hex digits of SHA-256 over the UTF-8
 * of the `transactionId`, whatever characters the id holds (a Cosmos DB id cannot hold `/`, `\`, `?`, `#`).
 */
export function transactionDocumentId(transactionId: string): string {
  return `txn:${createHash('sha256').update(transactionId, 'utf8').digest('hex').slice(0, 32)}`;
}

/**
 * What an `orderId` may hold that a Cosmos DB id addressed by name cannot: `/`, `\`, `?`, `#` (refused), a `%`
 * (the service decodes the path's escapes once more when it checks the signature, so such an id answers 401) and
 * trailing whitespace (which the service drops).
 */
const NOT_IN_AN_ID = /[/\\?#%]|\s$/u;

/**
 * The order's outbox hold id (see `OutboxHold`): `outbox-hold:<orderId>`, or, for an `orderId` holding something
 * {@link NOT_IN_AN_ID} names, `outbox-hold:~` and the first 32 hex digits of its SHA-256. The hold lives in the
 * order's own partition, so the id only has to be stable there.
 */
export function outboxHoldId(orderId: string): string {
  if (!NOT_IN_AN_ID.test(orderId)) return `outbox-hold:${orderId}`;
  return `outbox-hold:~${createHash('sha256').update(orderId, 'utf8').digest('hex').slice(0, 32)}`;
}

/** The id of an operator's discard of a hold (see `OutboxDiscardRecord`): the held range and the time make it unique. */
export function outboxDiscardId(heldThrough: number, atMs: number): string {
  return `outbox-discard:${heldThrough}:${atMs}`;
}
