import type { ServiceBusClient } from '@azure/service-bus';
import type { ServiceBusHostOptions } from '../config/serviceBusHostOptions.js';
import { createSettlementQueue } from './settlementQueue.js';
import { createTriggerReceiver, missingEntityMessage } from './triggerEntity.js';
import type { TriggerSource } from './triggerEntity.js';
import type { Dispatch, TriggerListener, TriggerLog } from './triggerListener.js';

/** Options of a trigger's listener, in the trigger thread (a queue's or subscription's, with or without sessions). */
export interface TriggerOptions {
  client: ServiceBusClient;
  registration: TriggerSource;
  hostOptions: ServiceBusHostOptions;
  /** The trigger's log lines (bound to its function and entity). */
  log: TriggerLog;
  /** Invokes the function with a message, on the main thread. */
  dispatch: Dispatch;
}

/**
 * Runs a non-session queue (or subscription) trigger like the host's message processor: one receiver, up to `maxConcurrentCalls`
 * handlers at once, automatic lock renewal up to `maxAutoLockRenewalDuration`. The handlers share one link, so
 * their settlements go through one {@link SettlementQueue} (see there for why).
 */
export function startQueueTrigger(options: TriggerOptions): TriggerListener {
  const { client, registration, hostOptions, log, dispatch } = options;
  const receiver = createTriggerReceiver(client, registration, {
    maxAutoLockRenewalDurationInMs: hostOptions.maxAutoLockRenewalDurationMs,
    skipParsingBodyAsJson: true,
  });
  const settlementQueue = createSettlementQueue();
  const inFlight = new Set<Promise<unknown>>();
  let missingReported = false;

  const subscription = receiver.subscribe(
    {
      processMessage: async (message) => {
        const run = dispatch({ receiver, queue: settlementQueue, message });
        inFlight.add(run);
        try {
          await run;
        } finally {
          inFlight.delete(run);
        }
      },
      processError: async ({ error, errorSource }) => {
        const missing = missingEntityMessage(registration, error);
        if (missing === undefined) log.warn({ err: error, errorSource }, 'receiver error');
        else if (!missingReported) log.error({ err: error }, missing);
        missingReported ||= missing !== undefined;
      },
    },
    { autoCompleteMessages: false, maxConcurrentCalls: hostOptions.maxConcurrentCalls },
  );

  return {
    async close() {
      // Stopping the subscription keeps the link open, so in-flight handlers can still settle on it.
      await subscription.close();
      await Promise.all([...inFlight]);
      await receiver.close();
    },
  };
}
