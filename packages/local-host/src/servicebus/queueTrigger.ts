import type { ServiceBusClient } from '@azure/service-bus';
import type { Logger } from 'pino';
import type { ThroughputSummary } from '../logging/throughputSummary.js';
import type { ServiceBusHostOptions } from '../config/serviceBusHostOptions.js';
import type { ServiceBusRegistration } from '../registrations.js';
import { processMessage } from './processMessage.js';
import { createSettlementQueue } from './settlementQueue.js';
import { createTriggerReceiver, missingEntityMessage, triggerEntity } from './triggerEntity.js';
import type { TriggerListener } from './triggerListener.js';

/** Options of {@link startQueueTrigger}. */
export interface QueueTriggerOptions {
  client: ServiceBusClient;
  registration: ServiceBusRegistration;
  hostOptions: ServiceBusHostOptions;
  logger: Logger;
  /** Counts each invocation's outcome for the periodic summary line. @default none */
  summary?: ThroughputSummary;
}

/**
 * Runs a non-session queue (or subscription) trigger like the host's message processor: one receiver, up to `maxConcurrentCalls`
 * handlers at once, automatic lock renewal up to `maxAutoLockRenewalDuration`. The handlers share one link, so
 * their settlements go through one {@link SettlementQueue} (see there for why).
 */
export function startQueueTrigger(options: QueueTriggerOptions): TriggerListener {
  const { client, registration, hostOptions, logger } = options;
  const log = logger.child({ function: registration.name, queue: triggerEntity(registration) });
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
        const run = processMessage({
          registration,
          receiver,
          settlementQueue,
          message,
          autoCompleteMessages: hostOptions.autoCompleteMessages,
          logger,
          summary: options.summary,
        });
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
