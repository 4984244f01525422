/**
 * The Functions host's side of a Service Bus message, through `@azure/functions-extensions-servicebus`
 * 0.2.0-preview (gRPC calls back to the host): the trigger input reduced to one message, its settlement exactly
 * once, and the session's release. The only file that knows the package's wire quirks (its settlement actions
 * need `StringValue` wrappers; see `FunctionsSettlementActions`).
 */
import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import type { DeadLetterReason } from '../core/deadLetterReasons.js';
import type { MessageSettlement } from '../core/ports/messageSettlement.js';
import { FunctionsAdapterError } from './functionsAdapterError.js';

/** A protobuf `google.protobuf.StringValue`, as the host's gRPC Settlement service expects it. */
interface StringValue {
  value: string;
}

/**
 * The settlement actions the extension hands to an `sdkBinding` trigger, typed as they behave on the wire in
 * 0.2.0-preview rather than as the package declares them: `deadletter` needs `StringValue` wrappers (the declared
 * `string` fails with "deadletterReason: object expected") and `renewSessionLock` resolves a protobuf
 * `Timestamp`, not a `Date`. Only `functionsSettlement.ts` should call these.
 */
export interface FunctionsSettlementActions {
  complete(message: ServiceBusReceivedMessage): Promise<void>;
  abandon(message: ServiceBusReceivedMessage, propertiesToModify?: Uint8Array): Promise<void>;
  deadletter(
    message: ServiceBusReceivedMessage,
    propertiesToModify?: Uint8Array,
    deadletterReason?: StringValue,
    deadletterErrorDescription?: StringValue,
  ): Promise<void>;
  renewMessageLock(message: ServiceBusReceivedMessage): Promise<void>;
  renewSessionLock(sessionId: string): Promise<unknown>;
  releaseSession(sessionId: string): Promise<void>;
}

/** One trigger invocation, reduced to the single message it carries. */
export interface FunctionsTriggerInput {
  message: ServiceBusReceivedMessage;
  /**
   * The body exactly as the extension decoded it: an object when `contentType` is `application/json` and the JSON
   * parsed, otherwise a string; a `Uint8Array` for non-binary AMQP sections. The core normalises it further.
   */
  body: unknown;
  actions: FunctionsSettlementActions;
}

const requiredActions = [
  'complete',
  'abandon',
  'deadletter',
  'renewMessageLock',
  'renewSessionLock',
  'releaseSession',
] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isSettlementActions(value: unknown): value is FunctionsSettlementActions {
  return isRecord(value) && requiredActions.every((name) => typeof value[name] === 'function');
}

function invalid(detail: string): FunctionsAdapterError {
  return new FunctionsAdapterError(
    'InvalidTriggerInput',
    `Service Bus trigger input is not an SDK-binding context: ${detail}. ` +
      'Register the trigger with sdkBinding: true (ensureServiceBusSdkBinding loads the extension).',
  );
}

/**
 * Reduces the first handler argument of an `sdkBinding: true` Service Bus trigger (`{ messages, actions }`) to one
 * message, whatever the cardinality: `one` gives a message, `many` an array, which must then hold exactly one
 * message — the processor settles message by message, and silently taking the first of several would drop the rest.
 */
export function normaliseTriggerInput(input: unknown): FunctionsTriggerInput {
  if (!isRecord(input) || !('messages' in input)) throw invalid('no "messages"');
  if (!isSettlementActions(input.actions)) throw invalid('"actions" lacks the settlement methods');
  let candidate: unknown = input.messages;
  if (Array.isArray(candidate)) {
    if (candidate.length !== 1) throw invalid(`expected exactly one message, got ${candidate.length}`);
    candidate = candidate[0];
  }
  if (!isRecord(candidate)) throw invalid('the message is not an object');
  // The extension builds a complete ServiceBusReceivedMessage; the checks above are what this adapter relies on.
  const message = candidate as unknown as ServiceBusReceivedMessage;
  return { message, body: message.body, actions: input.actions };
}

type Outcome = 'complete' | 'abandon' | 'deadLetter';

function describe(message: ServiceBusReceivedMessage): string {
  return `message ${String(message.messageId)} (session ${String(message.sessionId)})`;
}

/** Runs a call to the host: its failure is `SettlementFailed`, naming what failed, with the host's error as `cause`. */
async function hostCall(what: string, call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (error) {
    throw new FunctionsAdapterError('SettlementFailed', `The host failed to ${what}.`, { cause: error });
  }
}

/**
 * The {@link MessageSettlement} port for one message of one invocation.
 *
 * At most one outcome reaches the host: a call while another is in flight, or after one succeeded, throws
 * `MessageAlreadySettled` without calling the host. A call the host rejects throws `SettlementFailed` (gRPC error
 * as `cause`) and leaves the message unsettled, so the handler may still fall back to another outcome — e.g.
 * abandon after a failed dead-letter — or let the lock expire.
 */
export function settlementFor(
  actions: FunctionsSettlementActions,
  message: ServiceBusReceivedMessage,
): MessageSettlement {
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
      await hostCall(`${outcome} ${describe(message)}`, call);
      settledAs = outcome;
    } finally {
      inFlight = undefined;
    }
  }

  const { sessionId } = message;
  return {
    complete: () => settleOnce('complete', () => actions.complete(message)),
    abandon: () => settleOnce('abandon', () => actions.abandon(message)),
    deadLetter: (reason: DeadLetterReason, description: string) =>
      // StringValue wrappers: the proto declares both fields as google.protobuf.StringValue and 0.2.0-preview
      // forwards them unwrapped, so plain strings fail serialisation ("object expected").
      settleOnce('deadLetter', () => actions.deadletter(message, undefined, { value: reason }, { value: description })),
    // A session's messages are locked by the session (the host refuses a message lock renewal for them).
    renewLock: () =>
      hostCall(`renew the lock of ${describe(message)}`, () =>
        sessionId === undefined ? actions.renewMessageLock(message) : actions.renewSessionLock(sessionId),
      ),
  };
}

/**
 * Asks the host to close the session once this invocation returns (no further receive on it), so the slot accepts
 * the next session at once instead of idling `sessionIdleTimeout`. A failure is `SettlementFailed`.
 */
export function releaseSession(actions: FunctionsSettlementActions, sessionId: string): Promise<void> {
  return hostCall(`release session ${sessionId}`, () => actions.releaseSession(sessionId));
}
