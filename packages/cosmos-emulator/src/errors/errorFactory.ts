import { CosmosError, CosmosErrorCode } from './cosmosError.js';

/*
 * Every status/substatus/message the emulator sends lives here. Messages follow the service's wording
 * closely enough for people who grep logs for them; the SDK itself only reads status, substatus and body.
 */

/** 400 with an explanation; substatus defaults to 0. */
export function badRequest(message: string, substatus = 0): CosmosError {
  return new CosmosError(400, CosmosErrorCode.BadRequest, message, { substatus });
}

/** 400 for a body that is not valid JSON. */
export function malformedJson(detail: string): CosmosError {
  return badRequest(`The request payload is invalid: ${detail}`);
}

/** 400 for a document whose partition key does not match the `x-ms-documentdb-partitionkey` header. */
export function partitionKeyMismatch(): CosmosError {
  return badRequest(
    "PartitionKey extracted from document doesn't match the one specified in the header. Learn more: https://aka.ms/CosmosDB/sql/errors/wrong-pk-value",
    1001,
  );
}

/** 400 when a document operation on a partitioned container carries no partition key. */
export function partitionKeyMissing(): CosmosError {
  return badRequest(
    'PartitionKey value must be supplied for this operation. Learn more: https://aka.ms/CosmosDB/sql/errors/missing-pk',
  );
}

/** 401 for a missing, malformed or wrong signature. */
export function unauthorized(detail: string): CosmosError {
  return new CosmosError(
    401,
    CosmosErrorCode.Unauthorized,
    `The input authorization token can't serve the request. ${detail}`,
  );
}

/** 403 for a credential that does not cover the request (a resource token's scope or mode). */
export function forbidden(detail: string): CosmosError {
  return new CosmosError(
    403,
    CosmosErrorCode.Forbidden,
    `Insufficient permissions provided in the authorization header for the corresponding request. ${detail}`,
  );
}

/** 404 for a resource that does not exist (or has expired). */
export function notFound(what = 'Resource'): CosmosError {
  return new CosmosError(
    404,
    CosmosErrorCode.NotFound,
    `${what} Not Found. Learn more: https://aka.ms/cosmosdb-tsg-not-found`,
  );
}

/** 405 for a verb the resource does not support. */
export function methodNotAllowed(method: string, path: string): CosmosError {
  return new CosmosError(405, CosmosErrorCode.MethodNotAllowed, `Method ${method} is not supported on ${path}.`);
}

/** 409 for a create that meets an existing id. */
export function conflict(what = 'Entity'): CosmosError {
  return new CosmosError(409, CosmosErrorCode.Conflict, `${what} with the specified id already exists in the system.`);
}

/** 412 for a failed If-Match (or patch condition). */
export function preconditionFailed(): CosmosError {
  return new CosmosError(
    412,
    CosmosErrorCode.PreconditionFailed,
    'Operation cannot be performed because one of the specified precondition is not met.',
  );
}

/**
 * 413 for a document or request over the service's size limit. The default message has the service's shape
 * (`Message: {"Errors":[...]}` and a line break), which callers of the SDK match on.
 */
export function entityTooLarge(detail = 'Message: {"Errors":["Request size is too large"]}\r\n'): CosmosError {
  return new CosmosError(413, CosmosErrorCode.RequestEntityTooLarge, detail);
}

/** 413/3402 for a bulk operation left unexecuted because the response had reached its size limit; the SDKs re-send it. */
export function responseTooLarge(): CosmosError {
  return new CosmosError(
    413,
    CosmosErrorCode.RequestEntityTooLarge,
    'The bulk response reached its size limit before this operation ran; send it again.',
    { substatus: 3402 },
  );
}

/** 429/3200 (the request rate is over the container's throughput) with the retry hint the SDK's throttling policy honours. */
export function tooManyRequests(retryAfterMs: number): CosmosError {
  return new CosmosError(
    429,
    CosmosErrorCode.TooManyRequests,
    'Request rate is large. More Request Units may be needed, so no changes were made. Please retry this request later.',
    { substatus: 3200, retryAfterMs },
  );
}

/** 503 (injected or real, e.g. a failed durable write). */
export function serviceUnavailable(detail = 'Service is currently unavailable.'): CosmosError {
  return new CosmosError(503, CosmosErrorCode.ServiceUnavailable, detail);
}

/** 408 (injected, or a server-side script over its time budget). */
export function requestTimeout(detail = 'Request timed out.'): CosmosError {
  return new CosmosError(408, CosmosErrorCode.RequestTimeout, detail);
}

/** 501 for a feature of the service the emulator does not implement; the message names it. */
export function notImplemented(feature: string): CosmosError {
  return new CosmosError(501, CosmosErrorCode.NotImplemented, `The emulator does not support ${feature}.`);
}

/** 424 for a batch operation that did not fail itself but was rolled back with its batch. */
export function failedDependency(): CosmosError {
  return new CosmosError(
    424,
    CosmosErrorCode.FailedDependency,
    'Operation failed because another operation in the batch failed.',
  );
}

/** 500 for anything unexpected; the cause is kept for logs. */
export function internalError(cause: unknown): CosmosError {
  return new CosmosError(500, CosmosErrorCode.InternalServerError, 'An unexpected error occurred in the emulator.', {
    cause,
  });
}

/** Builds an error for an arbitrary injected status (fault injection). */
export function injectedStatus(status: number, retryAfterMs: number): CosmosError {
  if (status === 429) return tooManyRequests(retryAfterMs);
  if (status === 408) return requestTimeout();
  if (status === 503) return serviceUnavailable('Injected fault: service unavailable.');
  if (status === 500) return internalError(new Error('injected'));
  return new CosmosError(status, CosmosErrorCode.ServiceUnavailable, `Injected fault with status ${status}.`);
}

/** 400/1004: a cross-partition query the gateway will not serve directly; carries the query plan. */
export function crossPartitionQueryNeedsPlan(planJson: string): CosmosError {
  return new CosmosError(
    400,
    CosmosErrorCode.BadRequest,
    'The provided cross partition query can not be directly served by the gateway. This is a first chance (internal) exception that all newer clients will know how to handle gracefully.',
    { substatus: 1004, extraBody: { additionalErrorInfo: planJson } },
  );
}

/** 410/1002 for a partition key range id the container does not have; the SDKs refresh their routing map on it. */
export function partitionKeyRangeGone(id: string): CosmosError {
  return new CosmosError(
    410,
    CosmosErrorCode.Gone,
    `The partition key range '${id}' does not exist in this container (it may be from another --partition-key-ranges setting).`,
    { substatus: 1002 },
  );
}
