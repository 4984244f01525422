/**
 * Message settlement for Functions-hosted Service Bus triggers, through the settlement actions of
 * `@azure/functions-extensions-servicebus` 0.2.0-preview (gRPC calls back to the host). This file is the only place
 * that knows the package's wire quirks. Importing it also loads the extension (via `functionsServiceBusExtension`),
 * so the order processor's registration needs only this module.
 */
import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import type { DeadLetterReason } from '../core/deadLetterReasons.js';
import type { MessageSettlement } from '../core/ports/messageSettlement.js';
import { FunctionsAdapterError } from './functionsAdapterError.js';
import type { FunctionsSettlementActions } from './functionsTriggerInput.js';

export { FunctionsAdapterError, isFunctionsAdapterError } from './functionsAdapterError.js';
export type { FunctionsAdapterErrorCode } from './functionsAdapterError.js';
export { ensureServiceBusSdkBinding } from './functionsServiceBusExtension.js';
export { normaliseTriggerInput } from './functionsTriggerInput.js';
export type { FunctionsSettlementActions, FunctionsTriggerInput } from './functionsTriggerInput.js';

type Outcome = 'complete' | 'abandon' | 'deadLetter';

function describe(message: ServiceBusReceivedMessage): string {
  return `message ${String(message.messageId)} (session ${String(message.sessionId)})`;
}

/**
 * The {@link MessageSettlement} port for one message of one invocation.
 *
 * At most one outcome reaches the host: a call while another is in flight, or after one succeeded, throws
 * `MessageAlreadySettled` without calling the host. A call the host rejects throws `SettlementFailed` (gRPC error
 * as `cause`) and leaves the message unsettled, so the handler may still fall back to another outcome — e.g.
 * abandon after a failed dead-letter — or let the lock expire.
 */
export function settlementFor(actions: FunctionsSettlementActions, message: ServiceBusReceivedMessage): MessageSettlement {
  let settledAs: Outcome | undefined;
  let inFlight: Outcome | undefined;

  async function settleOnce(outcome: Outcome, call: () => Promise<void>): Promise<void> {
    const previous = settledAs ?? inFlight;
    if (previous !== undefined) {
      const state = settledAs ? 'already settled' : 'being settled';
      throw new FunctionsAdapterError(
        'MessageAlreadySettled',
        `Cannot ${outcome} ${describe(message)}: it is ${state} (${previous}).`,
      );
    }
    inFlight = outcome;
    try {
      await call();
      settledAs = outcome;
    } catch (error) {
      throw new FunctionsAdapterError('SettlementFailed', `The host failed to ${outcome} ${describe(message)}.`, {
        cause: error,
      });
    } finally {
      inFlight = undefined;
    }
  }

  return {
    complete: () => settleOnce('complete', () => actions.complete(message)),
    abandon: () => settleOnce('abandon', () => actions.abandon(message)),
    deadLetter: (reason: DeadLetterReason, description: string) =>
      // StringValue wrappers: the proto declares both fields as google.protobuf.StringValue and 0.2.0-preview
      // forwards them unwrapped, so plain strings fail serialisation ("object expected").
      settleOnce('deadLetter', () => actions.deadletter(message, undefined, { value: reason }, { value: description })),
  };
}

/** A protobuf Timestamp as proto-loader decodes it for the extension (`longs: String`). */
interface TimestampLike {
  seconds: string | number | { toString(): string };
  nanos?: number;
}

function isTimestampLike(value: unknown): value is TimestampLike {
  return typeof value === 'object' && value !== null && 'seconds' in value && value.seconds != null;
}

/** Converts the host's `lockedUntil` (a protobuf Timestamp in 0.2.0-preview, a Date if fixed upstream). */
export function lockedUntilToDate(lockedUntil: unknown): Date {
  if (lockedUntil instanceof Date) return lockedUntil;
  if (isTimestampLike(lockedUntil)) {
    const millis = Number(String(lockedUntil.seconds)) * 1000 + Math.floor((lockedUntil.nanos ?? 0) / 1e6);
    if (Number.isFinite(millis)) return new Date(millis);
  }
  throw new FunctionsAdapterError(
    'InvalidSessionLockResponse',
    `Unexpected lockedUntil from the host: ${JSON.stringify(lockedUntil)}.`,
  );
}

/** Renews the session lock through the host and returns when the lock now expires. */
export async function renewSessionLock(actions: FunctionsSettlementActions, sessionId: string): Promise<Date> {
  return lockedUntilToDate(await actions.renewSessionLock(sessionId));
}

/**
 * Asks the host to close the session once this invocation returns (no further receive on it), so the slot accepts
 * the next session at once instead of idling `sessionIdleTimeout`. A failure is `SettlementFailed`.
 */
export async function releaseSession(actions: FunctionsSettlementActions, sessionId: string): Promise<void> {
  try {
    await actions.releaseSession(sessionId);
  } catch (error) {
    throw new FunctionsAdapterError('SettlementFailed', `The host failed to release session ${sessionId}.`, { cause: error });
  }
}
