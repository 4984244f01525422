import { afterAll, afterEach, beforeAll } from 'vitest';
import type { InvocationContext, ServiceBusQueueHandler } from '@azure/functions';
import type { ServiceBusClient, ServiceBusReceivedMessage } from '@azure/service-bus';
import type { LocalServiceBusMessageActions } from '../../src/servicebus/messageActions.js';
import { defaultServiceBusHostOptions } from '../../src/config/serviceBusHostOptions.js';
import type { ServiceBusHostOptions } from '../../src/config/serviceBusHostOptions.js';
import type { RegistrationOf, ServiceBusRegistration } from '../../src/registrations.js';
import { startServiceBusHost } from '../../src/servicebus/serviceBusHost.js';
import type { ServiceBusHost } from '../../src/servicebus/serviceBusHost.js';
import { capturingLogger } from './logCapture.js';
import { startServiceBusFixture } from './serviceBusFixture.js';

type Fixture = Awaited<ReturnType<typeof startServiceBusFixture>>;

/** One emulator for the test file and at most one local Service Bus host per test, as {@link useServiceBusHost} gives them. */
export interface ServiceBusHostHarness {
  /** The emulator fixture (set once `beforeAll` ran). */
  readonly fixture: Fixture;
  readonly client: ServiceBusClient;
  /** Starts a host with one function against the emulator; returns its captured log lines. */
  startHost(registration: ServiceBusRegistration, options?: Partial<ServiceBusHostOptions>): Record<string, unknown>[];
  /** Closes the running host now (a test that asserts on what closing does); the hooks will not close it again. */
  closeHost(): Promise<void>;
}

/**
 * Registers the hooks that start an emulator for the file and close each test's host after it, so a failing test
 * cannot leave a receiver that steals the next test's messages. `baseOptions` are this file's host defaults.
 */
export function useServiceBusHost(baseOptions: Partial<ServiceBusHostOptions> = {}): ServiceBusHostHarness {
  let fixture: Fixture | undefined;
  let host: ServiceBusHost | undefined;
  beforeAll(async () => {
    fixture = await startServiceBusFixture();
  });
  afterAll(async () => {
    await fixture?.close();
  });
  afterEach(async () => {
    await host?.close();
    host = undefined;
  });
  const started = (): Fixture => {
    if (fixture === undefined) throw new Error('the Service Bus fixture is used before beforeAll ran');
    return fixture;
  };
  return {
    get fixture() {
      return started();
    },
    get client() {
      return started().client;
    },
    startHost(registration, options = {}) {
      const { logger, lines } = capturingLogger();
      host = startServiceBusHost({
        functions: [registration],
        settings: { ServiceBusConnection: started().connectionString },
        hostOptions: { ...defaultServiceBusHostOptions, ...baseOptions, ...options },
        logger,
      });
      return lines;
    },
    closeHost() {
      const closing = host?.close() ?? Promise.resolve();
      host = undefined;
      return closing;
    },
  };
}

/** The `{ messages, actions }` input of an `sdkBinding` Service Bus handler in the local host. */
export type SdkHandler = (
  input: { messages: ServiceBusReceivedMessage; actions: LocalServiceBusMessageActions },
  context: InvocationContext,
) => Promise<void>;

/** A session-enabled trigger registered exactly like the order processor (sdkBinding, auto-complete off, one). */
export function sessionFunction(queueName: string, handler: SdkHandler): RegistrationOf<'serviceBusQueue'> {
  return {
    kind: 'serviceBusQueue',
    name: `test-${queueName}`,
    options: {
      connection: 'ServiceBusConnection',
      queueName,
      isSessionsEnabled: true,
      sdkBinding: true,
      autoCompleteMessages: false,
      cardinality: 'one',
      handler: handler as ServiceBusQueueHandler,
    },
  };
}
