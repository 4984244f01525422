/**
 * The one place a Cosmos DB SDK failure becomes a core `StoreError` (design rule 8). Statuses the core retries
 * (408, 429, 449, 503) become `StoreTransient`; a write that may have reached the server but got no reply becomes
 * `StoreOutcomeUnknown`; everything else `StoreFailed`.
 */
import { CoreErrorCode, StoreError, TRANSIENT_STATUSES } from '../core/errors.js';
import type { StoreErrorCode } from '../core/errors.js';

/** Which kind of call failed: only a write can have an unknown outcome. */
export type CosmosCallKind = 'read' | 'commit';

/** What could be learnt about a failed SDK call. */
export interface CosmosFailure {
  /** HTTP status, when the server answered. */
  status: number | undefined;
  substatus: number | undefined;
  retryAfterMs: number | undefined;
  /** Node's network error code (`ECONNRESET`, ...) or the SDK's error name, when there was no answer. */
  networkCode: string | undefined;
  message: string;
}

/** Network failures that mean the request never left: nothing can have been written. */
const NOT_SENT = /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)\b/;
/** Network failures after the request may have been sent: a write's outcome is unknown. */
const NO_REPLY = /\b(ECONNRESET|EPIPE|ETIMEDOUT|ECONNABORTED)\b|socket hang up|timed? ?out|TimeoutError|aborted/i;

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The last status the gateway answered, from an error's diagnostics (`items.batch` keeps nothing else). */
function lastGatewayStatus(error: object): { status?: number; substatus?: number } {
  const diagnostics = (error as { diagnostics?: { clientSideRequestStatistics?: { gatewayStatistics?: unknown } } }).diagnostics;
  const stats = diagnostics?.clientSideRequestStatistics?.gatewayStatistics;
  if (!Array.isArray(stats) || stats.length === 0) return {};
  const last = stats[stats.length - 1] as { statusCode?: unknown; subStatusCode?: unknown };
  return { status: numberOf(last.statusCode), substatus: numberOf(last.subStatusCode) };
}

/**
 * Reads status and network code from anything the SDK threw. Point operations throw an `ErrorResponse` whose
 * `code` is the HTTP status (or a Node error code such as `ECONNREFUSED`). `items.batch` rethrows every failure as
 * a plain `Error("Batch request error: …")` (`dist/esm/client/Item/Items.js`), keeping only the message and the
 * diagnostics, so the status is taken from the diagnostics' gateway statistics there.
 */
export function describeCosmosFailure(error: unknown): CosmosFailure {
  if (typeof error !== 'object' || error === null) {
    return { status: undefined, substatus: undefined, retryAfterMs: undefined, networkCode: undefined, message: String(error) };
  }
  const e = error as { code?: unknown; statusCode?: unknown; substatus?: unknown; retryAfterInMs?: unknown; message?: unknown; name?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(error);
  const fromDiagnostics = lastGatewayStatus(error);
  const status = numberOf(e.code) ?? numberOf(e.statusCode) ?? fromDiagnostics.status;
  const substatus = numberOf(e.substatus) ?? fromDiagnostics.substatus;
  let networkCode: string | undefined;
  if (typeof e.code === 'string') networkCode = e.code;
  else if (status === undefined) networkCode = (NOT_SENT.exec(message) ?? NO_REPLY.exec(message))?.[0] ?? (typeof e.name === 'string' ? e.name : undefined);
  return { status, substatus, retryAfterMs: numberOf(e.retryAfterInMs), networkCode, message };
}

/** The core code for a failure of a call of `kind`. */
export function storeErrorCodeOf(failure: CosmosFailure, kind: CosmosCallKind): StoreErrorCode {
  const { status, networkCode, message } = failure;
  if (status !== undefined) {
    // A server-side timeout of a write: Cosmos may still have committed it.
    if (status === 408 && kind === 'commit') return CoreErrorCode.StoreOutcomeUnknown;
    return TRANSIENT_STATUSES.has(status) ? CoreErrorCode.StoreTransient : CoreErrorCode.StoreFailed;
  }
  const text = `${networkCode ?? ''} ${message}`;
  if (NOT_SENT.test(text)) return CoreErrorCode.StoreTransient;
  if (NO_REPLY.test(text)) return kind === 'commit' ? CoreErrorCode.StoreOutcomeUnknown : CoreErrorCode.StoreTransient;
  return CoreErrorCode.StoreFailed;
}

/** Translates an SDK failure of a `kind` call about `what` into a {@link StoreError}. */
export function toStoreError(error: unknown, kind: CosmosCallKind, what: string): StoreError {
  const failure = describeCosmosFailure(error);
  const code = storeErrorCodeOf(failure, kind);
  const reason = failure.status !== undefined ? `status ${failure.status}` : (failure.networkCode ?? 'no status');
  return new StoreError(code, `Cosmos DB ${kind} of ${what} failed (${reason}): ${failure.message}`, {
    status: failure.status,
    substatus: failure.substatus,
    retryAfterMs: failure.retryAfterMs,
    cause: error,
  });
}

/** The statuses of a 207 batch that the port reports as a typed conflict. */
export function isCommitConflictStatus(status: number): status is 404 | 409 | 412 {
  return status === 404 || status === 409 || status === 412;
}
