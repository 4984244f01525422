/**
 * The raw reference: a plain `@azure/service-bus` session consumer that only completes, so the broker and one
 * client's session round trips set the pace, without the Functions host or the app.
 */
import { ServiceBusClient, isServiceBusError } from '@azure/service-bus';
import type { ServiceBusSessionReceiver } from '@azure/service-bus';
import type { Throughput } from './phases.js';

/** A short receive wait: the consumer closes a session as soon as it is empty, instead of idling on it. */
export const RAW_RECEIVE_WAIT_MS = 100;

/** Options of {@link drainSessions}. */
export interface RawConsumerOptions {
  connectionString: string;
  queue: string;
  /** Workers, each holding one session at a time. */
  sessions: number;
  /** Messages to complete; the consumer stops at this count. */
  messages: number;
  /** Give up after this long, naming how many were completed. */
  timeoutMs: number;
}

/** What the raw consumer measured. */
export interface RawResult extends Throughput {
  sessionAccepts: number;
}

/**
 * Drains the queue's sessions with `sessions` workers on one client (one connection, like one host), each:
 * `acceptNextSession` → `receiveMessages(1, { maxWaitTimeInMs: 100 })` → `completeMessage`, closing the session
 * when a receive returns nothing and accepting the next; measured from the first accept to the last completion.
 * Peek-lock, no prefetch, the SDK's other defaults (session lock renewal up to 5 min).
 */
export async function drainSessions(options: RawConsumerOptions): Promise<RawResult> {
  const client = new ServiceBusClient(options.connectionString);
  let completed = 0;
  let sessionAccepts = 0;
  let done = false;
  let endedAt = 0;
  let finish: () => void = () => undefined;
  const finished = new Promise<undefined>((resolve) => {
    finish = () => {
      done = true;
      resolve(undefined);
    };
  });

  const drain = async (receiver: ServiceBusSessionReceiver): Promise<void> => {
    try {
      while (!done) {
        const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: RAW_RECEIVE_WAIT_MS });
        if (!message) return;
        await receiver.completeMessage(message);
        completed += 1;
        if (completed === options.messages) {
          endedAt = performance.now();
          finish();
        }
      }
    } finally {
      await receiver.close();
    }
  };

  const worker = async (): Promise<void> => {
    while (!done) {
      const pending = client.acceptNextSession(options.queue);
      let receiver: ServiceBusSessionReceiver | undefined;
      try {
        // A pending accept cannot be cancelled (see local/servicebus/sessionTrigger.ts): once every message is
        // completed the worker stops waiting for it, and a session granted late is closed at once.
        receiver = await Promise.race([pending, finished]);
      } catch (error) {
        if (done) return;
        if (isServiceBusError(error) && error.code === 'ServiceTimeout') continue;
        throw error;
      }
      if (!receiver) {
        void pending.then(
          (late) => late.close(),
          () => undefined,
        );
        return;
      }
      sessionAccepts += 1;
      await drain(receiver);
    }
  };

  let timer: NodeJS.Timeout | undefined;
  const started = performance.now();
  try {
    const workers = Array.from({ length: options.sessions }, () =>
      worker().catch((error: unknown) => {
        finish();
        throw error;
      }),
    );
    await Promise.race([
      Promise.all(workers),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          finish();
          reject(
            new Error(
              `raw consumer: ${completed}/${options.messages} messages completed after ${options.timeoutMs} ms`,
            ),
          );
        }, options.timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    await client.close();
  }
  const seconds = (endedAt - started) / 1000;
  return { messages: completed, seconds, perSecond: completed / seconds, sessionAccepts };
}
