/**
 * Wire codes the emulator answers with, in the `code` field of a Cosmos-shaped error body.
 * One closed list so every handler reports failures the way the service does.
 */
export const CosmosErrorCode = {
  BadRequest: 'BadRequest',
  Unauthorized: 'Unauthorized',
  Forbidden: 'Forbidden',
  NotFound: 'NotFound',
  MethodNotAllowed: 'MethodNotAllowed',
  RequestTimeout: 'RequestTimeout',
  Conflict: 'Conflict',
  Gone: 'Gone',
  PreconditionFailed: 'PreconditionFailed',
  RequestEntityTooLarge: 'RequestEntityTooLarge',
  FailedDependency: 'FailedDependency',
  TooManyRequests: 'TooManyRequests',
  InternalServerError: 'InternalServerError',
  NotImplemented: 'NotImplemented',
  ServiceUnavailable: 'ServiceUnavailable',
} as const;

/** One of {@link CosmosErrorCode}. */
export type CosmosErrorCode = (typeof CosmosErrorCode)[keyof typeof CosmosErrorCode];

/** Optional details carried by a {@link CosmosError}. */
export interface CosmosErrorDetails {
  /** `x-ms-substatus` value. @default 0 */
  substatus?: number;
  /** `x-ms-retry-after-ms` value, sent with 429s. */
  retryAfterMs?: number;
  /** Extra fields merged into the JSON error body (e.g. `additionalErrorInfo`). */
  extraBody?: Record<string, unknown>;
  /** Underlying failure, if any. */
  cause?: unknown;
}

/**
 * The emulator's single error type: HTTP status, substatus and wire code. Build instances with the
 * factory functions in `errorFactory.ts` so every wire message lives in one place.
 */
export class CosmosError extends Error {
  override readonly name = 'CosmosError';
  readonly substatus: number;
  readonly retryAfterMs: number | undefined;
  readonly extraBody: Record<string, unknown> | undefined;

  constructor(
    readonly status: number,
    readonly code: CosmosErrorCode,
    message: string,
    details: CosmosErrorDetails = {},
  ) {
    super(message, { cause: details.cause });
    this.substatus = details.substatus ?? 0;
    this.retryAfterMs = details.retryAfterMs;
    this.extraBody = details.extraBody;
  }
}

/** True for a {@link CosmosError}; checks `name` so it works across duplicate module copies. */
export function isCosmosError(value: unknown): value is CosmosError {
  return value instanceof Error && value.name === 'CosmosError' && 'status' in value && 'code' in value;
}
