import { createSettlementQueue } from './settlementQueue.js';
import { createTriggerReceiver, missingEntityMessage } from './triggerEntity.js';
import type { TriggerListener, TriggerOptions } from './triggerListener.js';

/**
 * Runs a non-session queue (or subscription) trigger like the host's message processor: one receiver, up to `maxConcurrentCalls`
 * handlers at once, automatic lock renewal up to `maxAutoLockRenewalDuration`. The handlers share one link, so
 * their settlements go through one {@link SettlementQueue} (see there for why). It runs in the trigger thread: each
 * message goes to the main thread to be invoked, and its call slot is taken until that invocation is over.
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
