import { badRequest } from '../errors/errorFactory.js';
import type { CosmosError } from '../errors/cosmosError.js';
import type { OperationResult } from '../store/accountStore.js';
import type { DocumentOperation } from '../store/documentOps.js';
import { CHARGE_CONSTANTS, operationCharge, storedSize, writtenBytes } from '../requestCharge.js';
import { toPatchBody } from '../store/patch.js';
import type { JsonObject } from '../store/types.js';

/** Service limits for one batch request, transactional or bulk. */
export const BATCH_LIMITS = { maxOperations: 100, maxBytes: 2 * 1024 * 1024 } as const;

/** A batch operation as the SDKs serialise it (JSON from `utils/batch.js`, or decoded from HybridRow). */
export interface WireOperation {
  operationType?: string;
  id?: string;
  resourceBody?: JsonObject;
  /** The partition key as a JSON array string, e.g. `["A"]`. */
  partitionKey?: string;
  ifMatch?: string;
  ifNoneMatch?: string;
  /** HybridRow only: this operation's result carries no body. */
  minimal?: boolean;
}

/** One operation's entry in a batch response (`TransactionalBatchOperationResult` on the wire). */
export interface WireResult {
  statusCode: number;
  subStatusCode?: number;
  requestCharge: number;
  eTag?: string;
  resourceBody?: JsonObject;
  retryAfterMilliseconds?: number;
  /** Why a failed operation failed (the SDKs surface it as the error's message). */
  message?: string;
}

/** A result entry and the bytes its operation wrote (kept off the wire). */
export interface ChargedResult {
  result: WireResult;
  bytesWritten: number;
}

/** Reads one wire operation. @throws CosmosError 400 naming the operation's index and what is wrong. */
export function toOperation(wire: WireOperation, index: number): DocumentOperation {
  if (wire === null || typeof wire !== 'object') throw badRequest(`Batch operation ${index} is not an object.`);
  const body = wire.resourceBody;
  const id = wire.id ?? (typeof body?.['id'] === 'string' ? (body['id'] as string) : undefined);
  const needBody = (): JsonObject => {
    if (body === undefined || body === null || typeof body !== 'object')
      throw badRequest(`Batch operation ${index} needs a resourceBody.`);
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
      return {
        kind: 'read',
        id: needId(),
        ...(wire.ifNoneMatch === undefined ? {} : { ifNoneMatch: wire.ifNoneMatch }),
      };
    case 'patch':
      return { kind: 'patch', id: needId(), patch: toPatchBody(body), ...ifMatch };
    default:
      throw badRequest(`Batch operation ${index} has an unknown operationType '${String(wire.operationType)}'.`);
  }
}

/** A failed operation's result entry; it charges nothing unless the store looked the item up (`requestCharge`). */
export function failureResult(error: CosmosError, requestCharge = 0): WireResult {
  return {
    statusCode: error.status,
    subStatusCode: error.substatus,
    requestCharge,
    ...(error.retryAfterMs !== undefined && { retryAfterMilliseconds: error.retryAfterMs }),
    message: error.message,
  };
}

/**
 * An operation's result entry, with what it charged (see `requestCharge.ts`): a refused operation the refusal's
 * charge, one that never ran (424, after another failed) nothing. `minimal` (Prefer: return=minimal) leaves the
 * document out.
 */
export function operationResult(
  result: OperationResult,
  minimal: boolean,
  kind: DocumentOperation['kind'],
): ChargedResult {
  if (!result.ok)
    return {
      result: failureResult(result.error, result.error.status === 424 ? 0 : CHARGE_CONSTANTS.refusedOperation),
      bytesWritten: 0,
    };
  const { status, doc } = result.outcome;
  const showBody = !minimal && doc !== undefined && status !== 204 && status !== 304;
  const size = doc === undefined ? undefined : storedSize(doc.body);
  return {
    result: {
      statusCode: status,
      requestCharge: operationCharge(kind, size),
      ...(doc !== undefined && { eTag: doc.body._etag }),
      ...(showBody && { resourceBody: doc.body }),
    },
    bytesWritten: writtenBytes(kind, size),
  };
}
