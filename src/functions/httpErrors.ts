/**
 * Answers shared by the HTTP functions.
 */
import type { HttpResponseInit } from '@azure/functions';
import { isServiceBusError } from '@azure/service-bus';
import { isRetryableStoreError } from '../core/errors.js';

/** Seconds a client should wait before retrying after a 503. */
const RETRY_AFTER_SECONDS = 1;

/** Service Bus failures worth a retry by the client (503) rather than a 500. */
const RETRYABLE_SEND_CODES = new Set(['ServiceBusy', 'ServiceTimeout', 'ServiceCommunicationProblem', 'QuotaExceeded']);

/**
 * 503 with `Retry-After` for a failure worth retrying (a throttled or unreachable dependency: the order store, or
 * Service Bus); anything else is rethrown, and the host answers 500.
 */
export function unavailableOrRethrow(error: unknown): HttpResponseInit {
  const retryable =
    isRetryableStoreError(error) ||
    (isServiceBusError(error) && (error.retryable || RETRYABLE_SEND_CODES.has(error.code)));
  if (!retryable) throw error;
  return {
    status: 503,
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    jsonBody: { error: 'ServiceUnavailable' },
  };
}
