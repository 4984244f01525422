/**
 * Errors of the outbox relay, one closed set of codes. Adapters of the targets translate their failures into
 * {@link OutboxDeliveryError}s; the relay branches on `code`, never on `instanceof`.
 */
export const OutboxErrorCode = {
  /**
   * The relay's own infrastructure failed (Service Bus unreachable, busy, unauthorised, the queue missing): every
   * order would fail alike, so the invocation fails and the trigger retries the batch.
   */
  TransportFailed: 'OutboxTransportFailed',
  /** A target refused this order's events (an HTTP error of the webhook, a message Service Bus rejects). */
  TargetRejected: 'OutboxTargetRejected',
  /** The invocation failed on purpose so the trigger retries its batch (see `OutboxRelay.relay`). */
  BatchFailed: 'OutboxBatchFailed',
  /** A hold's marker kept changing under a release or a discard (the relay appending); the next one goes on. */
  HoldKeptChanging: 'OutboxHoldKeptChanging',
} as const;
/** One of {@link OutboxErrorCode}. */
export type OutboxErrorCode = (typeof OutboxErrorCode)[keyof typeof OutboxErrorCode];

/** A delivery to one target failed. */
export class OutboxDeliveryError extends Error {
  override readonly name = 'OutboxDeliveryError';
  constructor(
    readonly code: typeof OutboxErrorCode.TransportFailed | typeof OutboxErrorCode.TargetRejected,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The relay could not finish a change batch; the trigger must retry it (nothing of it was skipped). */
export class OutboxBatchError extends Error {
  override readonly name = 'OutboxBatchError';
  readonly code = OutboxErrorCode.BatchFailed;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A release or a discard of a hold gave up after its marker kept changing; nothing was lost, the next one resumes. */
export class OutboxHoldError extends Error {
  override readonly name = 'OutboxHoldError';
  readonly code = OutboxErrorCode.HoldKeptChanging;
}

/** True for a failure of the relay's own infrastructure (see {@link OutboxErrorCode.TransportFailed}). */
export function isTransportFailure(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { code?: unknown }).code === OutboxErrorCode.TransportFailed
  );
}
