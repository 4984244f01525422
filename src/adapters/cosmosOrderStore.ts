/**
 * The core's `OrderStore` port on Cosmos DB for NoSQL: one container partitioned on `/orderId`, one transactional
 * batch per commit, point reads for the rest.
 */
import type { Container, ItemDefinition, OperationInput, OperationResponse } from '@azure/cosmos';
import { ORDER_DOCUMENT_ID } from '../core/documents/documentIds.js';
import type { InboxRecord } from '../core/documents/inboxRecord.js';
import type { OrderDocument } from '../core/documents/orderDocument.js';
import type { ParkedEntryDocument } from '../core/documents/parkedEntryDocument.js';
import type { AppliedEntryDocument } from '../core/documents/appliedEntryDocument.js';
import { withoutSystemProperties } from '../core/documents/systemProperties.js';
import { CoreErrorCode, StoreError, TRANSIENT_STATUSES } from '../core/errors.js';
import { assertCommitShape, type CommitResult, type OrderContainerDocument, type OrderStore, type StoreOperation, type Stored } from '../core/ports/orderStore.js';
import { isCommitConflictStatus, toStoreError } from './cosmosErrors.js';

/** Status of the operations Cosmos did not run because another one of the batch failed. */
const FAILED_DEPENDENCY = 424;

/**
 * {@link OrderStore} over a Cosmos DB container (`convoy`/`orders`, partition key `/orderId`).
 *
 * Every `commit` is exactly one `container.items.batch` call, so an applied entry costs one round trip. Give it a
 * client whose SDK retries are off (see `cosmosClientOptions`): the core retries transient failures itself within
 * its budget, and must see each 429 or timeout to decide.
 */
export class CosmosOrderStore implements OrderStore {
  constructor(private readonly container: Container) {}

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
    // Refuses what Cosmos would refuse anyway, before spending a round trip on it.
    assertCommitShape(orderId, operations);
    let results: OperationResponse[] | undefined;
    try {
      const response = await this.container.items.batch(operations.map(toOperationInput), orderId);
      results = response.result;
    } catch (error) {
      throw toStoreError(error, 'commit', `a batch of ${operations.length} operations in order ${orderId}`);
    }
    return interpretBatch(orderId, operations, results);
  }

  private async read<T extends OrderContainerDocument>(orderId: string, id: string): Promise<Stored<T> | undefined> {
    try {
      // 404 resolves (statusCode 404, no resource) rather than throwing.
      const { resource, etag } = await this.container.item(id, orderId).read<T & ItemDefinition>();
      if (resource === undefined) return undefined;
      return { doc: withoutSystemProperties(resource), etag: etag ?? resource._etag ?? '' };
    } catch (error) {
      throw toStoreError(error, 'read', `${id} in order ${orderId}`);
    }
  }
}

function toOperationInput(op: StoreOperation): OperationInput {
  // Documents are plain JSON by construction (the core's document types); the SDK wants its JSONObject.
  const body = (doc: OrderContainerDocument) => doc as unknown as Extract<OperationInput, { operationType: 'Create' }>['resourceBody'];
  switch (op.kind) {
    case 'create':
      return { operationType: 'Create', resourceBody: body(op.doc) };
    case 'upsert':
      return { operationType: 'Upsert', resourceBody: body(op.doc) };
    case 'replace':
      return { operationType: 'Replace', id: op.doc.id, resourceBody: body(op.doc), ...(op.ifMatch !== undefined && { ifMatch: op.ifMatch }) };
    case 'delete':
      return { operationType: 'Delete', id: op.id, ...(op.ifMatch !== undefined && { ifMatch: op.ifMatch }) };
  }
}

/**
 * A committed batch answers one 2xx per operation. A failed one (HTTP 207) applies nothing and answers the
 * failing operation's status and 424 for every other; the first non-424 failure is the one the port reports.
 */
function interpretBatch(orderId: string, operations: readonly StoreOperation[], results: OperationResponse[] | undefined): CommitResult {
  if (results === undefined || results.length !== operations.length) {
    throw new StoreError(
      CoreErrorCode.StoreFailed,
      `Cosmos DB answered ${results?.length ?? 'no'} results for a batch of ${operations.length} in order ${orderId}`,
    );
  }
  const failedIndex = results.findIndex((r) => r.statusCode >= 400 && r.statusCode !== FAILED_DEPENDENCY);
  if (failedIndex === -1) {
    if (results.some((r) => r.statusCode >= 400)) {
      throw new StoreError(CoreErrorCode.StoreFailed, `Cosmos DB failed a batch in order ${orderId} without naming an operation`);
    }
    return { ok: true, etags: results.map((r, i) => (operations[i]?.kind === 'delete' ? undefined : r.eTag)) };
  }
  const status = results[failedIndex]!.statusCode;
  if (isCommitConflictStatus(status)) return { ok: false, failedIndex, status };
  const code = TRANSIENT_STATUSES.has(status) ? CoreErrorCode.StoreTransient : CoreErrorCode.StoreFailed;
  throw new StoreError(code, `Cosmos DB refused operation ${failedIndex} of a batch in order ${orderId} with status ${status}`, { status });
}
