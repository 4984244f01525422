import { badRequest, entityTooLarge } from '../errors/errorFactory.js';
import { isHybridRowBatch, readHybridBatch, writeHybridBatchResults } from '../http/batchHybridRow.js';
import type { Reply } from '../http/reply.js';
import { json } from '../http/reply.js';
import type { RequestContext } from '../http/requestContext.js';
import { header, jsonBody } from '../http/requestContext.js';
import type { AccountStore } from '../store/accountStore.js';
import type { DocumentOperation } from '../store/documentOps.js';
import { partitionKeyFromHeader } from '../store/partitionKey.js';
import { sumCharges } from '../requestCharge.js';
import { BATCH_LIMITS, operationResult, toOperation } from './batchOperations.js';
import type { WireOperation } from './batchOperations.js';
import type { ContainerRef } from './documents.js';
import { requiredPartitionKey, sessionToken } from './documents.js';

/**
 * `POST .../docs` with `x-ms-cosmos-is-batch-request`: an atomic transactional batch. All operations
 * apply or none do. Success answers 200; a failure answers 207 with the failing operation's status and
 * 424 for every other one, so the SDK's `items.batch` resolves with per-operation results. Each result carries
 * its operation's request charge and the header their sum.
 */
export async function executeBatch(ctx: RequestContext, ref: ContainerRef, store: AccountStore): Promise<Reply> {
  if (ctx.body.length > BATCH_LIMITS.maxBytes) throw entityTooLarge('The batch request exceeds the 2 MB limit.');
  const pk = requiredPartitionKey(ctx, ref, store);
  // The .NET SDK sends HybridRow, the JS SDK JSON; both run the same checks and the same transaction.
  const hybrid = isHybridRowBatch(ctx.body);
  const wire: unknown = hybrid ? readHybridBatch(ctx.body) : jsonBody<unknown>(ctx);
  if (!Array.isArray(wire) || wire.length === 0)
    throw badRequest('A batch request must be a non-empty array of operations.');
  if (wire.length > BATCH_LIMITS.maxOperations)
    throw badRequest(`A batch may hold at most ${BATCH_LIMITS.maxOperations} operations.`);
  const definition = store.container(ref.db, ref.coll).res.partitionKey;
  const ops = (wire as WireOperation[]).map((op, i) => {
    const operation = toOperation(op, i);
    // One partition key value per batch: an operation may repeat it but not differ from it.
    if (op.partitionKey !== undefined && partitionKeyFromHeader(op.partitionKey, definition) !== pk) {
      throw badRequest(
        `One or more operations within the batch request have a different partition key value than the request. (Operation ${i}.)`,
        1001,
      );
    }
    return operation;
  });
  const minimalAll = header(ctx, 'prefer')?.includes('return=minimal') === true;
  const results = await store.execute(ref.db, ref.coll, pk, ops);
  const failed = results.some((r) => !r.ok);
  const charged = results.map((r, i) =>
    operationResult(r, minimalAll || (wire[i] as WireOperation).minimal === true, (ops[i] as DocumentOperation).kind),
  );
  const body = charged.map((c) => c.result);
  const headers = { 'x-ms-session-token': sessionToken(store) };
  const counted = {
    requestCharge: sumCharges(body.map((r) => r.requestCharge)),
    bytesWritten: charged.reduce((n, c) => n + c.bytesWritten, 0),
  };
  if (!hybrid) return { ...json(failed ? 207 : 200, body, headers), ...counted };
  return {
    status: failed ? 207 : 200,
    body: writeHybridBatchResults(body),
    headers: { ...headers, 'content-type': 'application/octet-stream' },
    ...counted,
  };
}
