import type { AppliedEntryDocument } from '../documents/appliedEntryDocument.js';
import type { InboxRecord } from '../documents/inboxRecord.js';
import type { OrderDocument } from '../documents/orderDocument.js';
import type { OutboxRecord } from '../documents/outboxRecord.js';
import type { ParkedEntryDocument } from '../documents/parkedEntryDocument.js';
import { CoreErrorCode, StoreError } from '../errors.js';

/** Any document of the `orders` container. Every one carries its partition key `orderId`. */
export type OrderContainerDocument = OrderDocument | InboxRecord | ParkedEntryDocument | OutboxRecord | AppliedEntryDocument;

/** A document read from the store with its ETag. Adapters may leave system properties (`_ts`, ...) on `doc`. */
export interface Stored<T> {
  doc: T;
  etag: string;
}

/** One operation of a {@link OrderStore.commit}; they run in order, all or nothing. */
export type StoreOperation =
  /** Fails with 409 if the id exists (the inbox arbiter). */
  | { kind: 'create'; doc: OrderContainerDocument }
  /** Fails with 404 if the id is missing, 412 if `ifMatch` is given and differs. */
  | { kind: 'replace'; doc: OrderContainerDocument; ifMatch?: string }
  /** Creates or replaces. */
  | { kind: 'upsert'; doc: OrderContainerDocument }
  /** Fails with 404 if the id is missing, 412 if `ifMatch` is given and differs. */
  | { kind: 'delete'; id: string; ifMatch?: string };

/** Cosmos DB's limit on operations per transactional batch, hence per {@link OrderStore.commit}. */
export const MAX_COMMIT_OPERATIONS = 100;

/**
 * Throws `StoreFailed` (status 400) for a commit Cosmos would refuse outright: no operations, more than
 * {@link MAX_COMMIT_OPERATIONS}, or a document outside partition `orderId`. Shared so every store refuses alike.
 */
export function assertCommitShape(orderId: string, operations: readonly StoreOperation[]): void {
  if (operations.length === 0 || operations.length > MAX_COMMIT_OPERATIONS) {
    throw new StoreError(CoreErrorCode.StoreFailed, `A batch holds 1–${MAX_COMMIT_OPERATIONS} operations, got ${operations.length}`, { status: 400 });
  }
  operations.forEach((op, index) => {
    if (op.kind !== 'delete' && op.doc.orderId !== orderId) {
      throw new StoreError(CoreErrorCode.StoreFailed, `Operation ${index} targets partition ${op.doc.orderId}, not ${orderId}`, { status: 400 });
    }
  });
}

/** The statuses a commit reports as a typed conflict rather than an error. */
export type CommitConflictStatus = 404 | 409 | 412;

/**
 * Outcome of a commit. On success, one ETag per operation (`undefined` for deletes). On a conflict, nothing was
 * written; `failedIndex` names the first operation that failed and `status` why.
 */
export type CommitResult =
  | { ok: true; etags: (string | undefined)[] }
  | { ok: false; failedIndex: number; status: CommitConflictStatus };

/**
 * Primitives over one partition (`orderId`) of the `orders` container; the core makes every decision. Each
 * `commit` maps onto one Cosmos DB transactional batch. Adapters translate failures: 404/409/412 of a commit
 * become a {@link CommitResult} conflict; transient failures (408, 429, 449, 503, network) throw a `StoreError`
 * with code `StoreTransient`; a timeout after the request may have reached the server throws
 * `StoreOutcomeUnknown`; anything else throws `StoreFailed`. Point reads answer `undefined` for 404.
 */
export interface OrderStore {
  readOrder(orderId: string): Promise<Stored<OrderDocument> | undefined>;
  readInbox(orderId: string, id: string): Promise<Stored<InboxRecord> | undefined>;
  readParked(orderId: string, id: string): Promise<Stored<ParkedEntryDocument> | undefined>;
  /** Reads an `applied:<entryId>` document (the rule 4 history); a point read like the others. */
  readApplied(orderId: string, id: string): Promise<Stored<AppliedEntryDocument> | undefined>;
  /** Runs 1–100 operations on documents of partition `orderId`, atomically. */
  commit(orderId: string, operations: readonly StoreOperation[]): Promise<CommitResult>;
}
