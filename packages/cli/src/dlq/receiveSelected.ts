import type { ServiceBusReceivedMessage, ServiceBusReceiver } from '@azure/service-bus';

/**
 * How long `dlq resubmit` and `dlq purge` keep receiving by default: above the queues' PT1M lock, so a lock that a
 * crashed receiver left behind runs out first.
 */
export const DLQ_RECEIVE_TIMEOUT_MS = 120_000;

/** Options of {@link receiveSelected}. */
export interface ReceiveSelectedOptions {
  /** How long one receive waits; an empty receive does not end the run. */
  receiveWaitMs: number;
  /** How long to keep receiving in all, measured on the monotonic clock. */
  timeoutMs: number;
  /** Most messages asked for by one receive. */
  maxBatch: number;
  /** The sequence numbers the queue holds now (peeked), to tell a dead letter that left it from a slow one. */
  present: () => Promise<ReadonlySet<string>>;
  /** Handles one received message, wanted or not; a throw ends the run. */
  take: (message: ServiceBusReceivedMessage) => Promise<void>;
}

/** What {@link receiveSelected} could not receive. */
export interface ReceiveSelectedOutcome {
  /** Wanted sequence numbers no longer on the queue: resubmitted or purged elsewhere meanwhile. */
  gone: string[];
  /** Wanted sequence numbers still on the queue when the timeout ran out (another receiver holds their locks). */
  unreached: string[];
}

/**
 * Receives until every `wanted` sequence number (known from a peek) came and was taken. A receive comes back empty
 * whenever delivery is slower than its wait, which says nothing about what is left, so an empty receive only makes
 * it look at the queue again: a wanted dead letter that is no longer there will never come and counts as gone.
 * What is still there but does not come (locked by someone else) is given up on after `timeoutMs`.
 */
export async function receiveSelected(
  receiver: ServiceBusReceiver,
  wanted: ReadonlySet<string>,
  options: ReceiveSelectedOptions,
): Promise<ReceiveSelectedOutcome> {
  const waiting = new Set(wanted);
  const gone: string[] = [];
  const deadline = performance.now() + options.timeoutMs;
  for (let left = options.timeoutMs; waiting.size > 0 && left > 0; left = Math.ceil(deadline - performance.now())) {
    const batch = await receiver.receiveMessages(Math.min(options.maxBatch, waiting.size + 10), {
      maxWaitTimeInMs: Math.min(options.receiveWaitMs, left),
    });
    for (const message of batch) {
      await options.take(message);
      waiting.delete(message.sequenceNumber?.toString() ?? '');
    }
    if (batch.length > 0) continue;
    const present = await options.present();
    for (const sequenceNumber of waiting) {
      if (present.has(sequenceNumber)) continue;
      waiting.delete(sequenceNumber);
      gone.push(sequenceNumber);
    }
  }
  return { gone, unreached: [...waiting] };
}

/** `#7, #9`, the first 20 of a longer list and how many more. */
export function sequenceList(sequenceNumbers: readonly string[]): string {
  const shown = sequenceNumbers
    .slice(0, 20)
    .map((n) => `#${n}`)
    .join(', ');
  return sequenceNumbers.length > 20 ? `${shown} and ${sequenceNumbers.length - 20} more` : shown;
}
