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
  /**
   * A hold's marker kept changing under the relay, a release or a discard (other writers winning its ETag): nothing
   * was lost, and the next attempt goes on (the trigger retries the relay's batch; the next release or discard).
   */
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

/** The relay, a release or a discard gave up on a hold whose marker kept changing. */
export class OutboxHoldError extends Error {
  override readonly name = 'OutboxHoldError';
  readonly code = OutboxErrorCode.HoldKeptChanging;
}
