import { app } from '@azure/functions';
import type {
  AppStartHandler,
  AppTerminateHandler,
  CosmosDBv4FunctionOptions,
  HttpFunctionOptions,
  ServiceBusQueueFunctionOptions,
  TimerFunctionOptions,
} from '@azure/functions';

/** One function definition, as given to the Functions host. */
export type FunctionRegistration =
  | { kind: 'serviceBusQueue'; name: string; options: ServiceBusQueueFunctionOptions }
  | { kind: 'http'; name: string; options: HttpFunctionOptions }
  | { kind: 'timer'; name: string; options: TimerFunctionOptions }
  | { kind: 'cosmosDB'; name: string; options: CosmosDBv4FunctionOptions };

const registrations: FunctionRegistration[] = [];
const startHooks: AppStartHandler[] = [];
const terminateHooks: AppTerminateHandler[] = [];

/**
 * Every function and app hook goes through here: the definition is forwarded to `app` (the real host) and
 * recorded, so the in-process host (`local/`) serves exactly the same list — one definition, two hosts.
 */
export const register = {
  serviceBusQueue(name: string, options: ServiceBusQueueFunctionOptions): void {
    registrations.push({ kind: 'serviceBusQueue', name, options });
    app.serviceBusQueue(name, options);
  },
  http(name: string, options: HttpFunctionOptions): void {
    registrations.push({ kind: 'http', name, options });
    app.http(name, options);
  },
  timer(name: string, options: TimerFunctionOptions): void {
    registrations.push({ kind: 'timer', name, options });
    app.timer(name, options);
  },
  cosmosDB(name: string, options: CosmosDBv4FunctionOptions): void {
    registrations.push({ kind: 'cosmosDB', name, options });
    app.cosmosDB(name, options);
  },
  /**
   * A start hook (`app.hook.appStart`): the Functions host runs it once the app is loaded, before any invocation;
   * the in-process host runs it right after loading the functions.
   */
  appStart(handler: AppStartHandler): void {
    startHooks.push(handler);
    app.hook.appStart(handler);
  },
  /**
   * A graceful-shutdown hook (`app.hook.appTerminate`): the Functions host runs it within its termination grace
   * period, the in-process host when it closes. Neither runs it on a forced kill.
   */
  appTerminate(handler: AppTerminateHandler): void {
    terminateHooks.push(handler);
    app.hook.appTerminate(handler);
  },
};

/** The functions registered so far, in registration order. */
export function registeredFunctions(): readonly FunctionRegistration[] {
  return registrations;
}

/** The `appStart` hooks registered so far, in registration order. */
export function registeredStartHooks(): readonly AppStartHandler[] {
  return startHooks;
}

/** The `appTerminate` hooks registered so far, in registration order. */
export function registeredTerminateHooks(): readonly AppTerminateHandler[] {
  return terminateHooks;
}
