import type {
  ServiceBusClient,
  ServiceBusReceiver,
  ServiceBusReceiverOptions,
  ServiceBusSessionReceiver,
  ServiceBusSessionReceiverOptions,
} from '@azure/service-bus';
import { isServiceBusError } from '@azure/service-bus';
import type { ServiceBusRegistration } from '../registrations.js';

/**
 * What the host logs, once per trigger, when the entity it reads does not exist (an entity file without it, or an
 * emulator data directory older than it), instead of retrying without a word; `undefined` for any other error.
 */
export function missingEntityMessage(registration: ServiceBusRegistration, error: unknown): string | undefined {
  if (!isServiceBusError(error) || error.code !== 'MessagingEntityNotFound') return undefined;
  const what = registration.kind === 'serviceBusTopic' ? 'topic subscription' : 'queue';
  return `function ${registration.name}: the ${what} ${triggerEntity(registration)} does not exist; declare it in the entity file (infra/servicebus.config.json) and start again`;
}

/** The entity a trigger reads, as logs name it: the queue, or `topic/Subscriptions/subscription`. */
export function triggerEntity(registration: ServiceBusRegistration): string {
  return registration.kind === 'serviceBusTopic'
    ? `${registration.options.topicName}/Subscriptions/${registration.options.subscriptionName}`
    : registration.options.queueName;
}

/** A receiver on the trigger's queue or subscription. */
export function createTriggerReceiver(
  client: ServiceBusClient,
  registration: ServiceBusRegistration,
  options: ServiceBusReceiverOptions,
): ServiceBusReceiver {
  return registration.kind === 'serviceBusTopic'
    ? client.createReceiver(registration.options.topicName, registration.options.subscriptionName, options)
    : client.createReceiver(registration.options.queueName, options);
}

/** Accepts the next available session of the trigger's queue or subscription. */
export function acceptNextTriggerSession(
  client: ServiceBusClient,
  registration: ServiceBusRegistration,
  options: ServiceBusSessionReceiverOptions,
): Promise<ServiceBusSessionReceiver> {
  return registration.kind === 'serviceBusTopic'
    ? client.acceptNextSession(registration.options.topicName, registration.options.subscriptionName, options)
    : client.acceptNextSession(registration.options.queueName, options);
}
