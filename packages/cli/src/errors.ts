/** What went wrong, as a closed set of codes the CLI maps to messages and exit codes in one place. */
import { errorMessage } from 'ledger-convoy/core';
export const CliErrorCode = {
  /** A flag has an unusable value. */
  InvalidOption: 'InvalidOption',
  /** A connection setting is missing or malformed. */
  Settings: 'Settings',
  /** The function app's HTTP API cannot be reached or answered unexpectedly. */
  Http: 'Http',
  /** Service Bus cannot be reached or refused the operation. */
  ServiceBus: 'ServiceBus',
  /** Cosmos DB cannot be reached or refused the operation. */
  Cosmos: 'Cosmos',
  /** A file (expectation, body) cannot be read or is malformed. */
  File: 'File',
  /** The requested message or order does not exist. */
  NotFound: 'NotFound',
  /** The command ran out of its `--timeout` before it was done; the message says what it did and what it did not. */
  Timeout: 'Timeout',
  /** Someone else is working on the same thing right now (an outbox hold being released); try again later. */
  Busy: 'Busy',
} as const;
/** One of {@link CliErrorCode}. */
export type CliErrorCode = (typeof CliErrorCode)[keyof typeof CliErrorCode];

/** An error the CLI reports as one line plus, when known, what to do about it. */
export class CliError extends Error {
  override readonly name = 'CliError';

  constructor(
    readonly code: CliErrorCode,
    message: string,
    /** What the user can do, e.g. "Start the stack with `npm start`." */
    readonly hint?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Checks `name`, not `instanceof`, so it works across module copies. */
export function isCliError(error: unknown): error is CliError {
  return error instanceof Error && error.name === 'CliError';
}

/** What went wrong and what to do, from anything thrown: a CLI error's hint, else only the message. */
export function describeError(error: unknown): { message: string; hint: string | undefined } {
  const message = errorMessage(error);
  const hint = (error as { hint?: unknown } | null | undefined)?.hint;
  return { message, hint: typeof hint === 'string' ? hint : undefined };
}

/** {@link describeError} as one line: `message → hint`. The console shows every error through it. */
export function errorText(error: unknown): string {
  const { message, hint } = describeError(error);
  return hint ? `${message} → ${hint}` : message;
}
