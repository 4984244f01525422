/**
 * Error codes of the core, one closed set. Callers branch on `error.code`, never on `instanceof`: errors cross
 * module copies (bundles, test doubles) where class identity is not reliable.
 */
export const CoreErrorCode = {
  /** A message or ledger body is not JSON or fails the schema (rules 6 and 9). Same string as the dead-letter reason. */
  SchemaValidationFailed: 'SchemaValidationFailed',
  /** Store failure worth retrying: Cosmos 408/429/449/503 or a network error (rule 8). */
  StoreTransient: 'StoreTransient',
  /** A write may or may not have committed (timeout after send). Retried like a transient failure. */
  StoreOutcomeUnknown: 'StoreOutcomeUnknown',
  /** Any other store failure: not retried within the handler; the message is abandoned. */
  StoreFailed: 'StoreFailed',
  /** The stored documents contradict each other (e.g. a parked index entry without its document). */
  StoreInconsistent: 'StoreInconsistent',
  /**
   * A stored document has a shape this version never writes (a local store of an earlier 0.x version): refused, not
   * converted (pre-1.0, CHANGELOG.md). Not retried.
   */
  StoredFormatUnknown: 'StoredFormatUnknown',
  /** A setting could not be parsed. */
  ConfigInvalid: 'ConfigInvalid',
} as const;

/** One of {@link CoreErrorCode}. */
export type CoreErrorCode = (typeof CoreErrorCode)[keyof typeof CoreErrorCode];

/** A validation issue: `path` like `entries[3].orderId`, empty for the whole body. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** Store error codes an adapter may raise. */
export type StoreErrorCode =
  | typeof CoreErrorCode.StoreTransient
  | typeof CoreErrorCode.StoreOutcomeUnknown
  | typeof CoreErrorCode.StoreFailed
  | typeof CoreErrorCode.StoreInconsistent
  | typeof CoreErrorCode.StoredFormatUnknown;

/** Details an adapter may attach to a {@link StoreError}. */
export interface StoreErrorDetails {
  /** HTTP status of the underlying failure, when there was one. */
  status?: number;
  /** Server-suggested wait (Cosmos `x-ms-retry-after-ms`). */
  retryAfterMs?: number;
  /** The store refused only because the request would pass its throughput budget (Cosmos 429): it says "later". */
  throttled?: boolean;
  cause?: unknown;
}

/** Failure of an `OrderStore` call, translated by the adapter from its SDK error. */
export class StoreError extends Error {
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  readonly throttled: boolean;
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    details: StoreErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'StoreError';
    this.status = details.status;
    this.retryAfterMs = details.retryAfterMs;
    this.throttled = details.throttled === true;
  }
}

/** A setting that could not be parsed; `setting` names the variable. */
export class ConfigError extends Error {
  readonly code = CoreErrorCode.ConfigInvalid;
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(`${setting}: ${message}`);
    this.name = 'ConfigError';
  }
}

/** Reads the `code` of anything thrown; `undefined` when it has none. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

/**
 * True for a store that refused only for its throughput budget (Cosmos 429): nothing is wrong with the request, it
 * must wait its turn, so no retry budget applies to it (rule 8).
 */
export function isThrottled(error: unknown): boolean {
  return errorCode(error) === CoreErrorCode.StoreTransient && (error as { throttled?: unknown }).throttled === true;
}

/** True for store errors the processor retries within its budget (rule 8). */
export function isRetryableStoreError(error: unknown): boolean {
  const code = errorCode(error);
  return code === CoreErrorCode.StoreTransient || code === CoreErrorCode.StoreOutcomeUnknown;
}
