/**
 * Every failure the broker reports, as a closed set of codes. Each code maps to exactly one AMQP condition
 * that `@azure/core-amqp` (and the .NET SDK) translate into their own error codes; the mapping lives here only.
 */
export const BrokerErrorCode = {
  /** Unknown queue, topic or subscription. SDK: MessagingEntityNotFound. */
  EntityNotFound: 'EntityNotFound',
  /** A queue, topic, subscription or rule of that name exists already (management API). */
  EntityAlreadyExists: 'EntityAlreadyExists',
  /** The lock token is unknown or expired. SDK: MessageLockLost. */
  MessageLockLost: 'MessageLockLost',
  /** The session lock was lost or expired. SDK: SessionLockLost. */
  SessionLockLost: 'SessionLockLost',
  /** The requested session is locked by another receiver. SDK: SessionCannotBeLocked. */
  SessionCannotBeLocked: 'SessionCannotBeLocked',
  /** The message is larger than the entity allows. SDK: MessageSizeExceeded. */
  MessageSizeExceeded: 'MessageSizeExceeded',
  /** A sequence number does not name a message in the expected state. SDK: MessageNotFound. */
  MessageNotFound: 'MessageNotFound',
  /** The held session attach timed out. SDK: ServiceTimeout. */
  Timeout: 'Timeout',
  /** A value is outside what the service allows (e.g. an id over 128 characters). SDK: ArgumentOutOfRange. */
  ArgumentOutOfRange: 'ArgumentOutOfRange',
  /** The request is malformed. SDK: GeneralError with the description. */
  BadRequest: 'BadRequest',
  /** The operation is not valid in this state (e.g. a session receive on a non-session queue). */
  InvalidOperation: 'InvalidOperation',
  /** The entity's status refuses the operation (Disabled, SendDisabled, ReceiveDisabled). SDK: MessagingEntityDisabled. */
  EntityDisabled: 'EntityDisabled',
  /** The credential is missing, wrong, expired or lacks the right. SDK: UnauthorizedAccess. */
  Unauthorized: 'Unauthorized',
  /** The operation is not implemented by this emulator. */
  NotImplemented: 'NotImplemented',
} as const;

/** One of {@link BrokerErrorCode}. */
export type BrokerErrorCode = (typeof BrokerErrorCode)[keyof typeof BrokerErrorCode];

const conditions: Record<BrokerErrorCode, { condition: string; status: number }> = {
  EntityNotFound: { condition: 'amqp:not-found', status: 404 },
  EntityAlreadyExists: { condition: 'com.microsoft:entity-already-exists', status: 409 },
  MessageLockLost: { condition: 'com.microsoft:message-lock-lost', status: 410 },
  SessionLockLost: { condition: 'com.microsoft:session-lock-lost', status: 410 },
  SessionCannotBeLocked: { condition: 'com.microsoft:session-cannot-be-locked', status: 410 },
  MessageSizeExceeded: { condition: 'amqp:link:message-size-exceeded', status: 413 },
  MessageNotFound: { condition: 'com.microsoft:message-not-found', status: 404 },
  Timeout: { condition: 'com.microsoft:timeout', status: 408 },
  ArgumentOutOfRange: { condition: 'com.microsoft:argument-out-of-range', status: 400 },
  BadRequest: { condition: 'com.microsoft:argument-error', status: 400 },
  InvalidOperation: { condition: 'amqp:not-allowed', status: 400 },
  EntityDisabled: { condition: 'com.microsoft:entity-disabled', status: 400 },
  Unauthorized: { condition: 'amqp:unauthorized-access', status: 401 },
  NotImplemented: { condition: 'amqp:not-implemented', status: 501 },
};

/** The broker's single error type; `code` is one of {@link BrokerErrorCode}. */
export class BrokerError extends Error {
  override readonly name = 'BrokerError';
  constructor(
    readonly code: BrokerErrorCode,
    message: string,
  ) {
    super(message);
  }

  /** The AMQP error condition the SDKs translate back into `code`. */
  get condition(): string {
    return conditions[this.code].condition;
  }

  /** The `$management` status code for this error. */
  get status(): number {
    return conditions[this.code].status;
  }

  /** The AMQP error object to put on a detach, a rejected outcome or a management reply. */
  toAmqp(): { condition: string; description: string } {
    return { condition: this.condition, description: this.message };
  }
}

/** Whether `err` is a {@link BrokerError} (checked by name, not `instanceof`). */
export function isBrokerError(err: unknown): err is BrokerError {
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'BrokerError';
}

/** Named factories so every wire message is written once. */
export const brokerErrors = {
  entityNotFound: (entity: string): BrokerError =>
    new BrokerError('EntityNotFound', `The messaging entity '${entity}' could not be found.`),
  alreadyExists: (entity: string): BrokerError =>
    new BrokerError('EntityAlreadyExists', `The messaging entity '${entity}' already exists.`),
  lockLost: (): BrokerError =>
    new BrokerError(
      'MessageLockLost',
      'The lock supplied is invalid. Either the lock expired, or the message has already been removed from the queue.',
    ),
  sessionLockLost: (sessionId: string): BrokerError =>
    new BrokerError(
      'SessionLockLost',
      `The session lock has expired on the MessageSession '${sessionId}'. Accept a new MessageSession.`,
    ),
  sessionCannotBeLocked: (sessionId: string): BrokerError =>
    new BrokerError(
      'SessionCannotBeLocked',
      `The requested session '${sessionId}' cannot be accepted. It may be locked by another receiver.`,
    ),
  tooLarge: (size: number, limit: number): BrokerError =>
    new BrokerError(
      'MessageSizeExceeded',
      `The received message (size ${size} bytes) exceeds the limit (${limit} bytes) currently allowed on the link.`,
    ),
  messageNotFound: (seq: number): BrokerError =>
    new BrokerError(
      'MessageNotFound',
      `Failed to lock one or more specified messages. The message with sequence number ${seq} was not found.`,
    ),
  noSession: (ms: number): BrokerError =>
    new BrokerError('Timeout', `No unlocked session became available within ${ms} ms.`),
  entityDisabled: (entity: string, operation: 'send' | 'receive'): BrokerError =>
    new BrokerError(
      'EntityDisabled',
      `The messaging entity '${entity}' is disabled for ${operation === 'send' ? 'sending' : 'receiving'} (its status does not allow it).`,
    ),
  unauthorized: (what: string): BrokerError => new BrokerError('Unauthorized', what),
  badRequest: (what: string): BrokerError => new BrokerError('BadRequest', what),
  outOfRange: (what: string): BrokerError => new BrokerError('ArgumentOutOfRange', what),
  invalid: (what: string): BrokerError => new BrokerError('InvalidOperation', what),
  notImplemented: (what: string): BrokerError =>
    new BrokerError('NotImplemented', `${what} is not supported by this emulator.`),
};
