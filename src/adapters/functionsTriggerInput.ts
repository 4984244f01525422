import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { FunctionsAdapterError } from './functionsAdapterError.js';

/** A protobuf `google.protobuf.StringValue`, as the host's gRPC Settlement service expects it. */
export interface StringValue {
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

const requiredActions = ['complete', 'abandon', 'deadletter', 'renewMessageLock', 'renewSessionLock', 'releaseSession'] as const;

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
      'Register the trigger with sdkBinding: true and import functionsServiceBusExtension first.',
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
