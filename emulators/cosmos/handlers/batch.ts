import { badRequest, entityTooLarge } from '../errors/errorFactory.js';
import { isHybridRowBatch, readHybridBatch, writeHybridBatchResults } from '../http/batchHybridRow.js';
import type { Reply } from '../http/reply.js';
import { json } from '../http/reply.js';
import type { RequestContext } from '../http/requestContext.js';
import { header, jsonBody } from '../http/requestContext.js';
import type { AccountStore } from '../store/accountStore.js';
import type { DocumentOperation } from '../store/documentOps.js';
import { toPatchBody } from '../store/patch.js';
import { partitionKeyFromHeader } from '../store/partitionKey.js';
import type { JsonObject } from '../store/types.js';
import type { ContainerRef } from './documents.js';
import { requiredPartitionKey, sessionToken } from './documents.js';

/** Service limits for one transactional batch. */
export const BATCH_LIMITS = { maxOperations: 100, maxBytes: 2 * 1024 * 1024 } as const;

/** A batch operation as the SDK serialises it (`utils/batch.js`). */
interface WireOperation {
  operationType?: string;
  id?: string;
  resourceBody?: JsonObject;
  partitionKey?: string;
  ifMatch?: string;
  ifNoneMatch?: string;
  /** HybridRow only: this operation's result carries no body. */
  minimal?: boolean;
}

function toOperation(wire: WireOperation, index: number): DocumentOperation {
  const body = wire.resourceBody;
  const id = wire.id ?? (typeof body?.['id'] === 'string' ? (body['id'] as string) : undefined);
  const needBody = (): JsonObject => {
    if (body === undefined || body === null || typeof body !== 'object') throw badRequest(`Batch operation ${index} needs a resourceBody.`);
    return body;
  };
  const needId = (): string => {
    if (typeof id !== 'string') throw badRequest(`Batch operation ${index} needs an id.`);
    return id;
  };
  const ifMatch = wire.ifMatch === undefined ? {} : { ifMatch: wire.ifMatch };
  switch (wire.operationType?.toLowerCase()) {
    case 'create':
      return { kind: 'create', body: needBody() };
    case 'upsert':
      return { kind: 'upsert', body: needBody(), ...ifMatch };
    case 'replace':
      return { kind: 'replace', id: needId(), body: needBody(), ...ifMatch };
    case 'delete':
      return { kind: 'delete', id: needId(), ...ifMatch };
    case 'read':
      return { kind: 'read', id: needId(), ...(wire.ifNoneMatch === undefined ? {} : { ifNoneMatch: wire.ifNoneMatch }) };
    case 'patch':
      return { kind: 'patch', id: needId(), patch: toPatchBody(body), ...ifMatch };
    default:
      throw badRequest(`Batch operation ${index} has an unknown operationType '${String(wire.operationType)}'.`);
  }
}

/**
 * `POST .../docs` with `x-ms-cosmos-is-batch-request`: an atomic transactional batch. All operations
 * apply or none do. Success answers 200; a failure answers 207 with the failing operation's status and
 * 424 for every other one, so the SDK's `items.batch` resolves with per-operation results.
 */
export async function executeBatch(ctx: RequestContext, ref: ContainerRef, store: AccountStore): Promise<Reply> {
  if (ctx.body.length > BATCH_LIMITS.maxBytes) throw entityTooLarge('The batch request exceeds the 2 MB limit.');
  const pk = requiredPartitionKey(ctx, ref, store);
  // The .NET SDK sends HybridRow, the JS SDK JSON; both run the same checks and the same transaction.
  const hybrid = isHybridRowBatch(ctx.body);
  const wire: unknown = hybrid ? readHybridBatch(ctx.body) : jsonBody<unknown>(ctx);
  if (!Array.isArray(wire) || wire.length === 0) throw badRequest('A batch request must be a non-empty array of operations.');
  if (wire.length > BATCH_LIMITS.maxOperations) throw badRequest(`A batch may hold at most ${BATCH_LIMITS.maxOperations} operations.`);
  const definition = store.container(ref.db, ref.coll).res.partitionKey;
  const ops = (wire as WireOperation[]).map((op, i) => {
    if (op === null || typeof op !== 'object') throw badRequest(`Batch operation ${i} is not an object.`);
    // One partition key value per batch: an operation may repeat it but not differ from it.
    if (op.partitionKey !== undefined && partitionKeyFromHeader(op.partitionKey, definition) !== pk) {
      throw badRequest(`One or more operations within the batch request have a different partition key value than the request. (Operation ${i}.)`, 1001);
    }
    return toOperation(op, i);
  });
  const minimalAll = header(ctx, 'prefer')?.includes('return=minimal') === true;
  const results = await store.execute(ref.db, ref.coll, pk, ops);
  const failed = results.some((r) => !r.ok);
  const body = results.map((r, i) => {
    if (!r.ok) return { statusCode: r.error.status, subStatusCode: r.error.substatus, requestCharge: 0 };
    const doc = r.outcome.doc;
    const minimal = minimalAll || (wire[i] as WireOperation).minimal === true;
    const showBody = !minimal && doc !== undefined && r.outcome.status !== 204 && r.outcome.status !== 304;
    return {
      statusCode: r.outcome.status,
      requestCharge: 1,
      ...(doc !== undefined && { eTag: doc.body._etag }),
      ...(showBody && { resourceBody: doc.body }),
    };
  });
  const headers = { 'x-ms-session-token': sessionToken(store) };
  if (!hybrid) return json(failed ? 207 : 200, body, headers);
  return { status: failed ? 207 : 200, body: writeHybridBatchResults(body), headers: { ...headers, 'content-type': 'application/octet-stream' } };
}
