import type {
  ServiceBusClient,
  ServiceBusReceiver,
  ServiceBusReceiverOptions,
  ServiceBusSessionReceiver,
  ServiceBusSessionReceiverOptions,
} from '@azure/service-bus';
import { isServiceBusError } from '@azure/service-bus';

/**
 * What a listener needs of a Service Bus trigger's registration: its entity and connection, without the handler (the
 * trigger thread gets this, structured-cloned; a registration is one).
 */
export type TriggerSource =
  | {
      kind: 'serviceBusQueue';
      name: string;
      options: { connection: string; queueName: string; isSessionsEnabled?: boolean };
    }
  | {
      kind: 'serviceBusTopic';
      name: string;
      options: { connection: string; topicName: string; subscriptionName: string; isSessionsEnabled?: boolean };
    };

/** The part of a registration the trigger thread is started with. */
export function triggerSource(registration: TriggerSource): TriggerSource {
  const { connection, isSessionsEnabled } = registration.options;
  return registration.kind === 'serviceBusTopic'
    ? {
        kind: registration.kind,
        name: registration.name,
        options: {
          connection,
          isSessionsEnabled,
          topicName: registration.options.topicName,
          subscriptionName: registration.options.subscriptionName,
        },
      }
    : {
        kind: registration.kind,
        name: registration.name,
        options: { connection, isSessionsEnabled, queueName: registration.options.queueName },
      };
}

/**
 * What the host logs, once per trigger, when the entity it reads does not exist (an entity file without it, or an
 * emulator data directory older than it), instead of retrying without a word; `undefined` for any other error.
 */
export function missingEntityMessage(registration: TriggerSource, error: unknown): string | undefined {
  if (!isServiceBusError(error) || error.code !== 'MessagingEntityNotFound') return undefined;
  const what = registration.kind === 'serviceBusTopic' ? 'topic subscription' : 'queue';
  return `function ${registration.name}: the ${what} ${triggerEntity(registration)} does not exist; declare it in the entity file (infra/servicebus.config.json) and start again`;
}

/** The entity a trigger reads, as logs name it: the queue, or `topic/Subscriptions/subscription`. */
export function triggerEntity(registration: TriggerSource): string {
  return registration.kind === 'serviceBusTopic'
    ? `${registration.options.topicName}/Subscriptions/${registration.options.subscriptionName}`
    : registration.options.queueName;
}

/** A receiver on the trigger's queue or subscription. */
export function createTriggerReceiver(
  client: ServiceBusClient,
  registration: TriggerSource,
  options: ServiceBusReceiverOptions,
): ServiceBusReceiver {
  return registration.kind === 'serviceBusTopic'
    ? client.createReceiver(registration.options.topicName, registration.options.subscriptionName, options)
    : client.createReceiver(registration.options.queueName, options);
}

/** Accepts the next available session of the trigger's queue or subscription. */
export function acceptNextTriggerSession(
  client: ServiceBusClient,
  registration: TriggerSource,
  options: ServiceBusSessionReceiverOptions,
): Promise<ServiceBusSessionReceiver> {
  return registration.kind === 'serviceBusTopic'
    ? client.acceptNextSession(registration.options.topicName, registration.options.subscriptionName, options)
    : client.acceptNextSession(registration.options.queueName, options);
}
