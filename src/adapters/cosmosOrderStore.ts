/**
 * The core's `OrderStore` (and `GapStore`) on Cosmos DB for NoSQL: one container partitioned on `/orderId`, one
 * transactional batch per write, point reads for the rest — and the one place a Cosmos DB status or SDK failure
 * becomes the domain's outcome or a `StoreError` (rule 8: 408 on a write is "outcome unknown"; 429, 449, 503 and
 * network failures are transient; anything else fails).
 */
import type {
  Container,
  FeedOptions,
  ItemDefinition,
  OperationInput,
  OperationResponse,
  SqlQuerySpec,
} from '@azure/cosmos';
import { ORDER_DOCUMENT_ID, transactionDocumentId } from '../core/documents/documentIds.js';
import type { EntryRecord, GapAlertMark, ParkedEntryRecord } from '../core/documents/entryRecord.js';
import { checkedOrderDocument, type OrderDocument } from '../core/documents/orderDocument.js';
import { withoutSystemProperties } from '../core/documents/systemProperties.js';
import type { TransactionDocument } from '../core/documents/transactionDocument.js';
import { CoreErrorCode, StoreError, type StoreErrorCode } from '../core/errors.js';
import type {
  CommitOutcome,
  GapStore,
  OrderContainerDocument,
  OrderStore,
  OrderWrite,
  Stored,
} from '../core/ports/orderStore.js';

/** Status of the operations Cosmos did not run because another one of the batch failed. */
const FAILED_DEPENDENCY = 424;
/** Statuses worth another attempt: timeout, throttled, write conflict under load, unavailable. */
const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([408, 429, 449, 503]);
/** Request rate too large: the request would pass the container's throughput budget (it says nothing else). */
const THROTTLED = 429;

/** One operation of a batch and what it stands for, so a failure at its index can be read in the domain's words. */
type Step = {
  role: 'entry' | 'order' | 'transaction';
  op: OperationInput;
};

/**
 * {@link OrderStore} over a Cosmos DB container (`convoy`/`orders`, partition key `/orderId`). Every `commit` is one
 * `container.items.batch` call, so an applied entry costs one round trip; a write refused because the entry's key
 * exists costs one more read, of the record it met. Give it a client whose SDK retries are off (`createCosmosClient`):
 * the core retries transient failures itself within its budget, and must see each 429 or timeout to decide.
 */
export class CosmosOrderStore implements OrderStore, GapStore {
  constructor(private readonly container: Container) {}

  async readOrder(orderId: string): Promise<Stored<OrderDocument> | undefined> {
    const stored = await this.read<OrderDocument>(orderId, ORDER_DOCUMENT_ID);
    return stored && { doc: checkedOrderDocument(stored.doc), etag: stored.etag };
  }

  readEntry(orderId: string, id: string): Promise<Stored<EntryRecord> | undefined> {
    return this.read<EntryRecord>(orderId, id);
  }

  async readTransaction(orderId: string, transactionId: string): Promise<Stored<TransactionDocument> | undefined> {
    const stored = await this.read<TransactionDocument>(orderId, transactionDocumentId(transactionId));
    // Two ids sharing the hash prefix: the document is another transaction's.
    return stored?.doc.transactionId === transactionId ? stored : undefined;
  }

  async listTransactions(orderId: string): Promise<TransactionDocument[]> {
    const query = "SELECT * FROM c WHERE c.docType = 'transaction' ORDER BY c.addedSequence";
    const what = `the transactions of order ${orderId}`;
    const found = await queryAll<object>(this.container, query, what, { partitionKey: orderId });
    return found.map((doc) => withoutSystemProperties<TransactionDocument>(doc));
  }

  async commit(orderId: string, write: OrderWrite): Promise<CommitOutcome> {
    const steps = batchOf(write);
    let results: OperationResponse[] | undefined;
    try {
      const operations = steps.map((s) => s.op);
      results = (await this.container.items.batch(operations, orderId)).result;
    } catch (error) {
      const failure = toStoreError(error, 'commit', `a batch of ${steps.length} operations in order ${orderId}`);
      if (failure.code === CoreErrorCode.StoreTransient)
        return {
          kind: 'transient',
          reason: failure.message,
          ...(failure.retryAfterMs !== undefined && { retryAfterMs: failure.retryAfterMs }),
          ...(failure.throttled && { throttled: true }),
        };
      if (failure.code === CoreErrorCode.StoreOutcomeUnknown) return { kind: 'unknown', reason: failure.message };
      throw failure;
    }
    // Answers the batch API cannot give: the store cannot tell what was written.
    const malformed = (what: string) =>
      new StoreError(CoreErrorCode.StoreFailed, `Cosmos DB ${what} in order ${orderId}`);
    if (results?.length !== steps.length)
      throw malformed(`answered ${results?.length ?? 'no'} results for a batch of ${steps.length}`);
    // A failed batch (HTTP 207) applied nothing: the failing operation has its status, every other 424.
    const failedIndex = results.findIndex((r) => r.statusCode >= 400 && r.statusCode !== FAILED_DEPENDENCY);
    if (failedIndex === -1) {
      if (results.some((r) => r.statusCode >= 400)) throw malformed('failed a batch without naming an operation');
      const orderEtag = results[steps.findIndex((s) => s.role === 'order')]?.eTag;
      if (orderEtag === undefined) throw malformed('gave no ETag for the order document');
      const transactionEtag = results[steps.findIndex((s) => s.role === 'transaction')]?.eTag;
      return { kind: 'committed', orderEtag, ...(transactionEtag !== undefined && { transactionEtag }) };
    }
    const { role } = steps[failedIndex]!;
    const status = results[failedIndex]!.statusCode;
    if (status === 409 && role === 'entry' && write.entry && 'create' in write.entry)
      return { kind: 'keySeen', record: (await this.readEntry(orderId, write.entry.create.id)) ?? null };
    // After the order's ETag held: the order as read has this transaction (rule 7).
    if (status === 409 && role === 'transaction' && write.transaction && 'create' in write.transaction)
      return { kind: 'transactionExists' };
    if (status === 404 || status === 409 || status === 412)
      return { kind: 'orderChanged', what: `${role} (status ${status})` };
    const reason = `Cosmos DB refused operation ${failedIndex} (${role}) of a batch in order ${orderId} with status ${status}`;
    if (status === 408) return { kind: 'unknown', reason };
    if (TRANSIENT_STATUSES.has(status))
      return { kind: 'transient', reason, ...(status === THROTTLED && { throttled: true }) };
    throw new StoreError(CoreErrorCode.StoreFailed, reason, { status });
  }

  async ordersWaiting(): Promise<OrderDocument[]> {
    const query =
      "SELECT * FROM c WHERE c.docType = 'order' AND (ARRAY_LENGTH(c.parked) > 0 OR ARRAY_CONTAINS(c.rejected, { alerted: false }, true))";
    const found = await queryAll<object>(this.container, query, 'orders with parked entries');
    return found.map((doc) => checkedOrderDocument(withoutSystemProperties<OrderDocument>(doc)));
  }

  async markGapAlert(parked: Stored<ParkedEntryRecord>, mark: GapAlertMark): Promise<'marked' | 'changed'> {
    const { orderId, id } = parked.doc;
    const written = await writeUnlessLost(`the gap alert mark of ${id} in order ${orderId}`, () =>
      this.container
        .item(id, orderId)
        .replace({ ...parked.doc, gapAlert: mark }, { accessCondition: { type: 'IfMatch', condition: parked.etag } }),
    );
    return written === 'lost' ? 'changed' : 'marked';
  }

  private read<T extends OrderContainerDocument>(orderId: string, id: string): Promise<Stored<T> | undefined> {
    return readStored<T>(this.container, id, orderId, `${id} in order ${orderId}`);
  }
}

/** The batch of a write, in the order the core's `OrderWrite` promises: entry record, order, transaction. */
function batchOf(write: OrderWrite): Step[] {
  // Documents are plain JSON by construction (the core's document types); the SDK wants its JSONObject.
  const body = (doc: OrderContainerDocument) =>
    doc as unknown as Extract<OperationInput, { operationType: 'Create' }>['resourceBody'];
  const put = (role: Step['role'], doc: OrderContainerDocument, etag: string | undefined): Step => ({
    role,
    op:
      etag === undefined
        ? { operationType: 'Create', resourceBody: body(doc) }
        : { operationType: 'Replace', id: doc.id, resourceBody: body(doc), ifMatch: etag },
  });
  const steps: Step[] = [];
  const { entry, order, transaction } = write;
  if (entry && 'create' in entry) steps.push(put('entry', entry.create, undefined));
  else if (entry) steps.push(put('entry', entry.replace.doc, entry.replace.etag));
  steps.push(put('order', order.doc, order.etag));
  if (transaction && 'create' in transaction) steps.push(put('transaction', transaction.create, undefined));
  else if (transaction) steps.push(put('transaction', transaction.replace.doc, transaction.replace.etag));
  return steps;
}

/** Which kind of call failed: only a write can have an unknown outcome. */
type CosmosCallKind = 'read' | 'commit';

/** Network failures that mean the request never left: nothing can have been written. */
const NOT_SENT = /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)\b/;
/** Network failures after the request may have been sent: a write's outcome is unknown. */
const NO_REPLY = /\b(ECONNRESET|EPIPE|ETIMEDOUT|ECONNABORTED)\b|socket hang up|timed? ?out|TimeoutError|aborted/i;

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The last status the gateway answered, from an error's diagnostics (`items.batch` keeps nothing else). */
function lastGatewayStatus(error: object): number | undefined {
  const diagnostics = (error as { diagnostics?: { clientSideRequestStatistics?: { gatewayStatistics?: unknown } } })
    .diagnostics;
  const stats = diagnostics?.clientSideRequestStatistics?.gatewayStatistics;
  if (!Array.isArray(stats) || stats.length === 0) return undefined;
  return numberOf((stats[stats.length - 1] as { statusCode?: unknown }).statusCode);
}

/** The core code for a failure of a call of `kind`: by the status the server answered, else by the network error. */
function storeErrorCodeOf(status: number | undefined, networkFailure: string, kind: CosmosCallKind): StoreErrorCode {
  if (status !== undefined) {
    // A server-side timeout of a write: Cosmos may still have committed it.
    if (status === 408 && kind === 'commit') return CoreErrorCode.StoreOutcomeUnknown;
    return TRANSIENT_STATUSES.has(status) ? CoreErrorCode.StoreTransient : CoreErrorCode.StoreFailed;
  }
  if (NOT_SENT.test(networkFailure)) return CoreErrorCode.StoreTransient;
  if (NO_REPLY.test(networkFailure))
    return kind === 'commit' ? CoreErrorCode.StoreOutcomeUnknown : CoreErrorCode.StoreTransient;
  return CoreErrorCode.StoreFailed;
}

/**
 * Translates anything the SDK threw on a `kind` call about `what` into a {@link StoreError}. Point operations throw
 * an `ErrorResponse` whose `code` is the HTTP status (or a Node error code such as `ECONNREFUSED`). `items.batch`
 * rethrows every failure as a plain `Error("Batch request error: …")` (`dist/esm/client/Item/Items.js`), keeping only
 * the message and the diagnostics, so the status is taken from the diagnostics' gateway statistics there.
 */
export function toStoreError(error: unknown, kind: CosmosCallKind, what: string): StoreError {
  const e = (typeof error === 'object' && error !== null ? error : {}) as Partial<
    Record<'code' | 'statusCode' | 'retryAfterInMs' | 'message' | 'name', unknown>
  >;
  const message = typeof e.message === 'string' ? e.message : String(error);
  const status = numberOf(e.code) ?? numberOf(e.statusCode) ?? lastGatewayStatus(e);
  // Without an answer: Node's network error code (`ECONNRESET`, ...), as the code or in the message, or the error's name.
  const networkCode =
    typeof e.code === 'string'
      ? e.code
      : ((NOT_SENT.exec(message) ?? NO_REPLY.exec(message))?.[0] ?? (typeof e.name === 'string' ? e.name : undefined));
  const code = storeErrorCodeOf(status, `${networkCode ?? ''} ${message}`, kind);
  const reason = status !== undefined ? `status ${status}` : (networkCode ?? 'no status');
  return new StoreError(code, `Cosmos DB ${kind} of ${what} failed (${reason}): ${message}`, {
    status,
    retryAfterMs: numberOf(e.retryAfterInMs),
    throttled: code === CoreErrorCode.StoreTransient && status === THROTTLED,
    cause: error,
  });
}

/** One document by a point read, without system properties; `undefined` when there is none. */
export async function readStored<T extends object>(
  container: Container,
  id: string,
  partitionKey: string,
  what: string,
): Promise<Stored<T> | undefined> {
  try {
    // 404 resolves (statusCode 404, no resource) rather than throwing.
    const { resource, etag } = await container.item(id, partitionKey).read<T & ItemDefinition>();
    if (resource === undefined) return undefined;
    return { doc: withoutSystemProperties(resource), etag: etag ?? resource._etag ?? '' };
  } catch (error) {
    throw toStoreError(error, 'read', what);
  }
}

/** Every result of a query, across partitions unless `options` name one. */
export async function queryAll<T>(
  container: Container,
  query: SqlQuerySpec | string,
  what: string,
  options?: FeedOptions,
): Promise<T[]> {
  try {
    return (await container.items.query<T>(query, options).fetchAll()).resources;
  } catch (error) {
    throw toStoreError(error, 'read', what);
  }
}

/**
 * Runs a conditional write of `what`: `lost` when its condition failed (the document to create exists, 409, or the
 * one named changed, 412, or is gone, 404); any other failure throws a {@link StoreError}.
 */
export async function writeUnlessLost<T>(what: string, write: () => Promise<T>): Promise<T | 'lost'> {
  try {
    return await write();
  } catch (error) {
    const failure = toStoreError(error, 'commit', what);
    if (failure.status === 404 || failure.status === 409 || failure.status === 412) return 'lost';
    throw failure;
  }
}
