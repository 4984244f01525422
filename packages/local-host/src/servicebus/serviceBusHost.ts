import type { ServiceBusClient } from '@azure/service-bus';
import type { Logger } from 'pino';
import type { ThroughputSummary } from '../logging/throughputSummary.js';
import type { ServiceBusHostOptions } from '../config/serviceBusHostOptions.js';
import type { ServiceBusRegistration } from '../registrations.js';
import { startQueueTrigger } from './queueTrigger.js';
import { serviceBusClientFor } from './serviceBusClients.js';
import type { AppSettings } from '../config/appSettings.js';
import { startSessionTrigger } from './sessionTrigger.js';
import type { TriggerListener } from './triggerListener.js';

/** Options of {@link startServiceBusHost}. */
interface ServiceBusHostStartOptions {
  /** Queue and subscription triggers. */
  functions: readonly ServiceBusRegistration[];
  settings: AppSettings;
  hostOptions: ServiceBusHostOptions;
  logger: Logger;
  /** Counts each invocation's outcome for the periodic summary line. @default none */
  summary?: ThroughputSummary;
}

/** The running Service Bus triggers. */
export interface ServiceBusHost {
  /** Drains every trigger (in-flight messages finish and settle), then closes the clients. */
  close(): Promise<void>;
}

/** Starts one listener per Service Bus function, one client per distinct connection setting. */
export function startServiceBusHost(options: ServiceBusHostStartOptions): ServiceBusHost {
  // Resolve every connection before starting anything, so a missing setting leaves nothing running.
  const connections = new Set(options.functions.map((registration) => registration.options.connection));
  const clients = new Map<string, ServiceBusClient>();
  try {
    for (const connection of connections) clients.set(connection, serviceBusClientFor(connection, options.settings));
  } catch (error) {
    void Promise.all([...clients.values()].map((client) => client.close()));
    throw error;
  }
  const listeners: TriggerListener[] = [];
  for (const registration of options.functions) {
    const client = clients.get(registration.options.connection) as ServiceBusClient;
    const start = registration.options.isSessionsEnabled ? startSessionTrigger : startQueueTrigger;
    listeners.push(
      start({
        client,
        registration,
        hostOptions: options.hostOptions,
        logger: options.logger,
        summary: options.summary,
      }),
    );
  }
  return {
    async close() {
      await Promise.all(listeners.map((listener) => listener.close()));
      await Promise.all([...clients.values()].map((client) => client.close()));
    },
  };
}
