import { setMaxListeners } from 'node:events';
import { availableParallelism } from 'node:os';
import { isServiceBusError } from '@azure/service-bus';
import type { ServiceBusSessionReceiver } from '@azure/service-bus';
import { createSettlementQueue } from './settlementQueue.js';
import { acceptNextTriggerSession, missingEntityMessage } from './triggerEntity.js';
import type { TriggerListener, TriggerOptions } from './triggerListener.js';

/** Options of {@link startSessionTrigger}. */
export interface SessionTriggerOptions extends TriggerOptions {
  /** Processors the accept limit counts (see {@link acceptLimit}). @default os.availableParallelism() */
  processorCount?: number;
}

/**
 * How many session accepts may be pending at once: the SDK's session processor caps them at
 * min(maxConcurrentCalls, 2 × processor count) so a host does not flood the broker with accept requests
 * (Azure.Messaging.ServiceBus `ServiceBusProcessor.ReconcileConcurrencyAsync`); with one call per session,
 * maxConcurrentCalls is the session count.
 * @internal
 */
export function acceptLimit(maxConcurrentSessions: number, processorCount: number): number {
  return Math.max(1, Math.min(maxConcurrentSessions, 2 * processorCount));
}

// After an unexpected receive error, wait before asking for a session again instead of spinning.
const RETRY_DELAY_MS = 1000;
// Abort listeners one worker keeps on the trigger's signal at once: its accept's own, the SDK's while it accepts,
// and its session's link (or its retry delay's).
const LISTENERS_PER_WORKER = 3;

/**
 * Runs a session-enabled queue (or subscription) trigger like the host's session processor (single dispatch, one call per session):
 * - `maxConcurrentSessions` slots, each holding one session and processing its messages one at a time in order;
 *   at most {@link acceptLimit} of them wait for a session at once;
 * - after each message (handler and auto-complete done) the slot receives again and waits up to
 *   `sessionIdleTimeout`; an empty receive closes the session and the slot accepts the next one;
 * - `releaseSession` from the handler starts no new receive: the session closes once the running handler returns;
 * - a handler that throws has its unsettled message abandoned and the slot stays on the session (the SDK's
 *   processor swallows the error after `ProcessErrorAsync`); a failed receive (a lost session lock) closes it;
 * - session locks renew automatically from the accept, idle waits included, up to `maxAutoLockRenewalDuration`.
 * Each session has its own receiver, so concurrent sessions never share a link. It runs in the trigger thread: each
 * message goes to the main thread to be invoked, and the slot receives again once that invocation is over.
 */
export function startSessionTrigger(options: SessionTriggerOptions): TriggerListener {
  const { client, registration, hostOptions, log, dispatch } = options;
  const abort = new AbortController();
  // Every worker listens on this one signal, so more than ten workers is normal, not a leak.
  setMaxListeners(hostOptions.maxConcurrentSessions * LISTENERS_PER_WORKER + 10, abort.signal);
  let acceptsPending = 0;
  let missingReported = false;
  const accepts = new Gate(
    acceptLimit(hostOptions.maxConcurrentSessions, options.processorCount ?? availableParallelism()),
  );

  const accept = async (): Promise<ServiceBusSessionReceiver | undefined> => {
    if (!(await accepts.enter(abort.signal))) return undefined;
    acceptsPending += 1;
    log.debug({ acceptsPending }, 'accepting a session');
    try {
      return await acceptOne();
    } finally {
      acceptsPending -= 1;
      accepts.leave();
    }
  };

  const acceptOne = async (): Promise<ServiceBusSessionReceiver | undefined> => {
    const started = Date.now();
    const pending = acceptNextTriggerSession(client, registration, {
      maxAutoLockRenewalDurationInMs: hostOptions.maxAutoLockRenewalDurationMs,
      skipParsingBodyAsJson: true,
      abortSignal: abort.signal,
    });
    // The SDK cannot abort a pending session accept (its link creation ignores the abort signal, and closing the
    // client leaves the promise pending until the operation timeout), so closing races it against the abort and a
    // session granted late is handed straight back.
    let onAbort: () => void = () => undefined;
    const aborted = new Promise<undefined>((resolve) => {
      onAbort = () => resolve(undefined);
      abort.signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const receiver = await Promise.race([pending, aborted]);
      if (abort.signal.aborted) {
        void pending.then(
          (late) => late.close(),
          () => undefined,
        );
        if (receiver) await receiver.close().catch(() => undefined);
        return undefined;
      }
      return receiver;
    } catch (error) {
      if (abort.signal.aborted) return undefined;
      // No session became available within the operation timeout: ask again (pausing if the broker answered
      // at once rather than holding the request, so an idle queue does not turn into a busy loop).
      if (isServiceBusError(error) && error.code === 'ServiceTimeout') {
        if (Date.now() - started < RETRY_DELAY_MS) await delay(RETRY_DELAY_MS, abort.signal);
        return undefined;
      }
      const missing = missingEntityMessage(registration, error);
      if (missing === undefined) log.warn({ err: error }, 'accepting a session failed');
      else if (!missingReported) log.error({ err: error }, missing);
      missingReported ||= missing !== undefined;
      await delay(RETRY_DELAY_MS, abort.signal);
      return undefined;
    } finally {
      abort.signal.removeEventListener('abort', onAbort);
    }
  };

  const drainSession = async (receiver: ServiceBusSessionReceiver): Promise<void> => {
    const settlementQueue = createSettlementQueue();
    let release = false;
    log.debug({ sessionId: receiver.sessionId }, 'session accepted');
    // The SDK leaves one abort listener behind on the signal of each session receiver's receiveMessages, so each
    // session gets its own signal (dropped with the session), linked to the trigger's by one listener removed here.
    const sessionAbort = new AbortController();
    const onAbort = (): void => sessionAbort.abort();
    abort.signal.addEventListener('abort', onAbort, { once: true });
    try {
      while (!abort.signal.aborted && !release) {
        let messages;
        try {
          messages = await receiver.receiveMessages(1, {
            maxWaitTimeInMs: hostOptions.sessionIdleTimeoutMs,
            abortSignal: sessionAbort.signal,
          });
        } catch (error) {
          if (!abort.signal.aborted) log.warn({ err: error, sessionId: receiver.sessionId }, 'session receive failed');
          return;
        }
        const [message] = messages;
        if (!message) return; // idle: release the session so another worker (or host) can take it
        const invoked = await dispatch({ receiver, queue: settlementQueue, message, session: receiver });
        release = invoked.releaseSession;
      }
    } finally {
      abort.signal.removeEventListener('abort', onAbort);
    }
  };

  const worker = async (): Promise<void> => {
    while (!abort.signal.aborted) {
      const receiver = await accept();
      if (!receiver) continue;
      try {
        await drainSession(receiver);
      } finally {
        // While draining, the session stays held until the client's connection closes: releasing it here would let
        // one of the other workers' pending accepts (which cannot be cancelled) take it over during shutdown.
        if (!abort.signal.aborted) {
          await receiver
            .close()
            .catch((error: unknown) => log.warn({ err: error }, 'closing a session receiver failed'));
          log.debug({ sessionId: receiver.sessionId }, 'session released');
        }
      }
    }
  };

  const workers = Array.from({ length: hostOptions.maxConcurrentSessions }, () => worker());
  return {
    async close() {
      abort.abort();
      await Promise.all(workers);
    },
  };
}

/** A counting semaphore; a waiter whose `signal` aborts leaves the line without a place (`enter` resolves false). */
class Gate {
  private readonly waiters: ((entered: boolean) => void)[] = [];

  constructor(private free: number) {}

  enter(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (this.free > 0) {
      this.free -= 1;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const onAbort = (): void => {
        this.waiters.splice(this.waiters.indexOf(wake), 1);
        resolve(false);
      };
      const wake = (entered: boolean): void => {
        signal.removeEventListener('abort', onAbort);
        resolve(entered);
      };
      this.waiters.push(wake);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Hands the place to the next waiter, or frees it. */
  leave(): void {
    const next = this.waiters.shift();
    if (next) next(true);
    else this.free += 1;
  }
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
