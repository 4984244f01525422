import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import type { TraceContext } from '@azure/functions';
import type { Logger } from 'pino';
import type { ThroughputSummary } from '../logging/throughputSummary.js';
import { createInvocationContext } from '../logging/invocationContext.js';
import { inInvocation } from '../logging/logOutput.js';
import type { ServiceBusRegistration } from '../registrations.js';
import { createInvocationSettlement } from './messageActions.js';
import type { SessionControl, Settle, SettlementOutcome } from './messageActions.js';
import { triggerEntity } from './triggerEntity.js';
import { toExtensionMessage, toHostBody, toTriggerMetadata } from './triggerInput.js';

/** One message to run through one Service Bus function. */
export interface ProcessMessageOptions {
  registration: ServiceBusRegistration;
  /** The message as the trigger thread received it, rebuilt on this thread (wireMessage.ts). */
  message: ServiceBusReceivedMessage;
  /** Executes the settlements on the receiver holding the message, in the trigger thread. */
  settle: Settle;
  session?: SessionControl;
  /** host.json's value, overridden by a queue registration's own `autoCompleteMessages` (a topic's has none). */
  autoCompleteMessages: boolean;
  logger: Logger;
  /** Counts each invocation's outcome for the periodic summary line. @default none */
  summary?: ThroughputSummary;
}

/** What happened to the message; `unsettled` when nobody settled it (auto-complete off). */
export type MessageOutcome = SettlementOutcome | 'unsettled';

/**
 * Invokes the function for one message with the host's trigger semantics and logs one structured line.
 * On success an unsettled message is completed when auto-complete is on, and left alone when it is off. On a thrown
 * error an unsettled message is abandoned whatever auto-complete says: the Service Bus processor abandons every
 * message a failed handler left unsettled (Azure.Messaging.ServiceBus `ReceiverManager`, after
 * `ProcessErrorAsync`), and the host's session slot then goes on receiving from the same session.
 */
export async function processMessage(options: ProcessMessageOptions): Promise<MessageOutcome> {
  const { registration, message, logger } = options;
  const started = performance.now();
  const settlement = createInvocationSettlement({ settle: options.settle, message, session: options.session });
  const sdkBinding = registration.options.sdkBinding === true;
  const extensionMessage = sdkBinding ? toExtensionMessage(message) : undefined;
  const input = extensionMessage ? { messages: extensionMessage, actions: settlement.actions } : toHostBody(message);
  const context = createInvocationContext(logger, {
    functionName: registration.name,
    triggerMetadata: toTriggerMetadata(message),
    traceContext: traceContextOf(message),
  });
  const autoComplete =
    (registration.kind === 'serviceBusQueue' ? registration.options.autoCompleteMessages : undefined) ??
    options.autoCompleteMessages;

  let failed = false;
  try {
    await inInvocation({ function: registration.name, invocationId: context.invocationId }, () =>
      registration.options.handler(input, context),
    );
  } catch (error) {
    failed = true;
    context.error('function threw', error);
  }
  if ((autoComplete || failed) && settlement.outcome() === undefined) {
    try {
      await (failed ? settlement.abandon() : settlement.complete());
    } catch (error) {
      context.error(`automatic ${failed ? 'abandon' : 'complete'} failed`, error);
    }
  }

  // The real host forgets the lock token and the session here: later actions fail (see createInvocationSettlement).
  settlement.end();
  const outcome: MessageOutcome = settlement.outcome() ?? 'unsettled';
  options.summary?.record(registration.name, outcome);
  const body = extensionMessage ? extensionMessage.body : input;
  const line = {
    function: registration.name,
    queue: triggerEntity(registration),
    invocationId: context.invocationId,
    messageId: message.messageId,
    ...describeEntry(message, body),
    deliveryCount: message.deliveryCount,
    outcome,
    ...(outcome === 'deadLettered' ? { deadLetterReason: settlement.deadLetterReason() } : {}),
    ...(failed ? { failed: true } : {}),
    durationMs: Math.round(performance.now() - started),
  };
  // As on the real host, an unsettled message stays locked (in a session: until the session is let go) while the
  // next message is delivered, so order within the session breaks; said loudly, since it is almost always a bug.
  if (outcome === 'unsettled') {
    const held =
      message.sessionId === undefined ? 'until its lock expires' : "while the session's next message is delivered";
    logger.warn(
      { ...line, note: `${registration.name} returned without settling: the message stays locked ${held}` },
      'message processed but not settled',
    );
  }
  // One line per message: at debug, since a person reads the throughput summary instead (see throughputSummary.ts).
  else logger.debug(line, 'message processed');
  return outcome;
}

/** The W3C trace context the Azure SDKs put on a message (`Diagnostic-Id`, or `traceparent`). */
function traceContextOf(message: ServiceBusReceivedMessage): TraceContext | undefined {
  const properties = message.applicationProperties ?? {};
  const traceParent = properties['Diagnostic-Id'] ?? properties.traceparent;
  return typeof traceParent === 'string' ? { traceParent } : undefined;
}

/**
 * What the message is about: an order entry's entryId, orderId (the session) and sequence, or a ledger's ledgerId;
 * from the body when it parsed, else from the transport fields (messageId, sessionId, applicationProperties).
 */
function describeEntry(message: ServiceBusReceivedMessage, body: unknown): Record<string, unknown> {
  const parsed =
    typeof body === 'object' && body !== null && !Buffer.isBuffer(body) ? (body as Record<string, unknown>) : {};
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  const properties = message.applicationProperties ?? {};
  const ledgerId = message.sessionId === undefined && parsed.entryId === undefined ? text(parsed.ledgerId) : undefined;
  const fields: Record<string, unknown> = ledgerId
    ? { ledgerId }
    : {
        entryId: text(parsed.entryId) ?? message.messageId,
        orderId: message.sessionId ?? text(parsed.orderId),
        sequence: properties.sequence ?? (typeof parsed.sequence === 'number' ? parsed.sequence : undefined),
      };
  for (const key of Object.keys(fields)) if (fields[key] === undefined) delete fields[key];
  return fields;
}
