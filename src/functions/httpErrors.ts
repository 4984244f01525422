/**
 * Answers shared by the HTTP functions.
 */
import type { HttpResponseInit } from '@azure/functions';
import { isRetryableStoreError } from '../core/errors.js';

/** Seconds a client should wait before retrying after a 503. */
const RETRY_AFTER_SECONDS = 1;

/**
 * 503 with `Retry-After` for a failure worth retrying (a throttled or unreachable dependency); `undefined` for
 * anything else, which the caller rethrows (the host answers 500).
 */
export function unavailable(error: unknown, retryable = isRetryableStoreError(error)): HttpResponseInit | undefined {
  if (!retryable) return undefined;
  return {
    status: 503,
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    jsonBody: { error: 'ServiceUnavailable' },
  };
}
