/**
 * Why a Functions adapter refused or failed an operation. A closed set, so callers can branch on `code`
 * rather than on message text.
 */
export type FunctionsAdapterErrorCode =
  /** The handler's first argument is not the `{ messages, actions }` shape the SDK binding produces. */
  | 'InvalidTriggerInput'
  /** The message was already settled (or a settlement is in flight); a second outcome is refused. */
  | 'MessageAlreadySettled'
  /** The host rejected or failed a settlement call; `cause` holds the gRPC error. */
  | 'SettlementFailed'
  /** The extension's message factory is not registered where `@azure/functions` looks it up. */
  | 'ExtensionNotRegistered';

/** The one error type thrown by the `functions…` adapters. `name` is stable for checks across copies. */
export class FunctionsAdapterError extends Error {
  override readonly name = 'FunctionsAdapterError';

  constructor(
    readonly code: FunctionsAdapterErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** True for a {@link FunctionsAdapterError}, checked by `name` so it survives duplicate module copies. @internal */
export function isFunctionsAdapterError(error: unknown): error is FunctionsAdapterError {
  return error instanceof Error && error.name === 'FunctionsAdapterError' && 'code' in error;
}
