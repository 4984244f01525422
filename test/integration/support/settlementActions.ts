import type { ServiceBusReceivedMessage, ServiceBusReceiver, ServiceBusSessionReceiver } from '@azure/service-bus';

/** A settlement the test adapter performed. */
export interface RecordedSettlement {
  action: 'complete' | 'abandon' | 'deadletter';
  messageId: string | undefined;
  reason?: string;
  description?: string;
}

/** Unwraps a protobuf `StringValue` (what the settlement adapter sends) or passes a plain string through. */
function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && 'value' in value)
    return String((value as { value: unknown }).value);
  return undefined;
}

/** Options of {@link receiverActions}. */
export interface ReceiverActionsOptions {
  /** Turn `complete` into an abandon, as if the completion had been lost (the broker redelivers). */
  loseCompletions?: boolean;
}

/**
 * The `actions` of an `sdkBinding` invocation, backed by a real `@azure/service-bus` receiver instead of the host's
 * gRPC service. Settlements run one after another, each awaited: rhea coalesces same-tick dispositions of one
 * receiver into the first outcome (docs/platform.md), which would turn a dead letter into a completion.
 */
export function receiverActions(
  receiver: ServiceBusReceiver | ServiceBusSessionReceiver,
  options: ReceiverActionsOptions = {},
) {
  const settled: RecordedSettlement[] = [];
  const renewals: string[] = [];
  // Sessions the handler asked to release; the real host closes them once the handler returns.
  const releases: string[] = [];
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = chain.then(work);
    chain = next.catch(() => undefined);
    return next;
  };
  const actions = {
    complete: (message: ServiceBusReceivedMessage) =>
      serial(async () => {
        if (options.loseCompletions) await receiver.abandonMessage(message);
        else await receiver.completeMessage(message);
        settled.push({ action: 'complete', messageId: idOf(message) });
      }),
    abandon: (message: ServiceBusReceivedMessage) =>
      serial(async () => {
        await receiver.abandonMessage(message);
        settled.push({ action: 'abandon', messageId: idOf(message) });
      }),
    deadletter: (
      message: ServiceBusReceivedMessage,
      _properties?: Uint8Array,
      reason?: unknown,
      description?: unknown,
    ) =>
      serial(async () => {
        const deadLetterReason = text(reason);
        const deadLetterErrorDescription = text(description);
        await receiver.deadLetterMessage(message, {
          deadLetterReason: deadLetterReason ?? '',
          deadLetterErrorDescription: deadLetterErrorDescription ?? '',
        });
        settled.push({
          action: 'deadletter',
          messageId: idOf(message),
          reason: deadLetterReason,
          description: deadLetterErrorDescription,
        });
      }),
    renewMessageLock: (message: ServiceBusReceivedMessage) =>
      serial(async () => {
        await receiver.renewMessageLock(message);
        renewals.push(idOf(message) ?? '');
      }),
    renewSessionLock: (_sessionId: string) =>
      serial(async () => {
        const until = await (receiver as ServiceBusSessionReceiver).renewSessionLock();
        return { seconds: String(Math.floor(until.getTime() / 1000)), nanos: 0 };
      }),
    releaseSession: async (sessionId: string) => {
      releases.push(sessionId);
    },
  };
  return { actions, settled, renewals, releases };
}

function idOf(message: ServiceBusReceivedMessage): string | undefined {
  return message.messageId === undefined ? undefined : String(message.messageId);
}
