import { isCosmosError } from '../errors/cosmosError.js';
import type { CosmosError } from '../errors/cosmosError.js';
import {
  badRequest,
  entityTooLarge,
  failedDependency,
  injectedStatus,
  partitionKeyMissing,
  partitionKeyRangeGone,
  responseTooLarge,
} from '../errors/errorFactory.js';
import { isHybridRowBatch, readHybridBatch, writeHybridBatchResults } from '../http/batchHybridRow.js';
import type { Reply } from '../http/reply.js';
import { json } from '../http/reply.js';
import type { RequestContext } from '../http/requestContext.js';
import { flag, header, jsonBody } from '../http/requestContext.js';
import type { AccountStore } from '../store/accountStore.js';
import type { DocumentOperation } from '../store/documentOps.js';
import { partitionKeyFromHeader } from '../store/partitionKey.js';
import { sumCharges } from '../requestCharge.js';
import { BATCH_LIMITS, failureResult, operationResult, toOperation } from './batchOperations.js';
import type { WireOperation, WireResult } from './batchOperations.js';
import type { ContainerRef } from './documents.js';
import { sessionToken } from './documents.js';
import { requestScope } from './scope.js';

/*
 * Bulk as the service runs it: a batch request that is not atomic (`x-ms-cosmos-batch-atomic: false`), addressed
 * to one partition key range (`x-ms-documentdb-partitionkeyrangeid`) rather than one partition key, whose
 * operations each carry their own partition key and succeed or fail on their own. The SDKs group operations by
 * range and re-batch, per operation, whatever comes back 429 (after its retry hint), 410 (after refreshing their
 * routing map) or 413/3402 (the answer grew too large) — see `bulk/Batcher.js` and
 * `retry/bulkExecutionRetryPolicy.js` in `@azure/cosmos`.
 */

/** The service stops executing a bulk request once its answer passes 4 MB; the rest come back 413/3402. */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** A parsed operation, or the error its parsing raised. */
type Parsed = { ok: true; op: DocumentOperation; pk: string; minimal: boolean } | { ok: false; error: CosmosError };

/** True for a batch request that is bulk (`x-ms-cosmos-batch-atomic: false`) rather than transactional. */
export function isBulkRequest(ctx: RequestContext): boolean {
  return header(ctx, 'x-ms-cosmos-batch-atomic')?.toLowerCase() === 'false';
}

function parse(wire: WireOperation, index: number, ref: ContainerRef, store: AccountStore): Parsed {
  try {
    const op = toOperation(wire, index);
    const pk = partitionKeyFromHeader(wire.partitionKey, store.container(ref.db, ref.coll).res.partitionKey);
    if (pk === undefined) throw partitionKeyMissing();
    return { ok: true, op, pk, minimal: wire.minimal === true };
  } catch (error) {
    if (!isCosmosError(error)) throw error;
    return { ok: false, error };
  }
}

/**
 * `POST .../docs` with `x-ms-cosmos-is-batch-request` and `x-ms-cosmos-batch-atomic: false`. Every operation
 * runs on its own, in order, and reports its own status in one response: 200 when all succeeded, else 207.
 * With `x-ms-cosmos-batch-continue-on-error: false` the first failure stops the run and the operations after it
 * answer 424. An operation whose partition key lies outside the addressed range answers 410/1002 (as after a
 * split) and the SDK re-routes just that one; a range id the container does not have makes the whole request 410.
 */
export async function executeBulk(ctx: RequestContext, ref: ContainerRef, store: AccountStore): Promise<Reply> {
  if (ctx.body.length > BATCH_LIMITS.maxBytes) throw entityTooLarge();
  const state = store.container(ref.db, ref.coll);
  const scope = requestScope(ctx, state);
  const hybrid = isHybridRowBatch(ctx.body);
  const wire: unknown = hybrid ? readHybridBatch(ctx.body) : jsonBody<unknown>(ctx);
  if (!Array.isArray(wire) || wire.length === 0)
    throw badRequest('A bulk request must be a non-empty array of operations.');
  if (wire.length > BATCH_LIMITS.maxOperations)
    throw badRequest(`A bulk request may hold at most ${BATCH_LIMITS.maxOperations} operations.`);
  const rangeId = header(ctx, 'x-ms-documentdb-partitionkeyrangeid') ?? '';
  const parsed = (wire as WireOperation[]).map((op, i) => {
    const p = parse(op, i, ref, store);
    // Not this range's to run: the SDK refreshes its routing map and sends the operation where it belongs.
    return p.ok && scope.pk === undefined && !state.changes.holds(scope, p.pk)
      ? { ok: false as const, error: partitionKeyRangeGone(rangeId) }
      : p;
  });
  const continueOnError = flag(ctx, 'x-ms-cosmos-batch-continue-on-error');
  const minimalAll = header(ctx, 'prefer')?.includes('return=minimal') === true;
  const results: WireResult[] = [];
  let stopped: 'failed' | 'full' | undefined;
  let responseBytes = 0;
  let bytesWritten = 0;
  for (const p of parsed) {
    if (stopped !== undefined) {
      results.push(failureResult(stopped === 'failed' ? failedDependency() : responseTooLarge()));
      continue;
    }
    const fault = ctx.faults?.take('bulkOperation');
    let result: WireResult;
    if (fault?.mode === 'error') result = failureResult(injectedStatus(fault.status, fault.retryAfterMs));
    else if (!p.ok) result = failureResult(p.error);
    else {
      const [outcome] = await store.execute(ref.db, ref.coll, p.pk, [p.op]);
      if (outcome === undefined) throw badRequest('No operation was executed.');
      const charged = operationResult(outcome, minimalAll || p.minimal, p.op.kind);
      result = charged.result;
      bytesWritten += charged.bytesWritten;
    }
    results.push(result);
    responseBytes += result.resourceBody === undefined ? 0 : Buffer.byteLength(JSON.stringify(result.resourceBody));
    if (result.statusCode >= 400 && !continueOnError) stopped = 'failed';
    else if (responseBytes > MAX_RESPONSE_BYTES) stopped = 'full';
  }
  const status = results.some((r) => r.statusCode >= 400) ? 207 : 200;
  const headers = { 'x-ms-session-token': sessionToken(store) };
  const counted = { requestCharge: sumCharges(results.map((r) => r.requestCharge)), bytesWritten };
  if (!hybrid) return { ...json(status, results, headers), ...counted };
  return {
    status,
    body: writeHybridBatchResults(results),
    headers: { ...headers, 'content-type': 'application/octet-stream' },
    ...counted,
  };
}
