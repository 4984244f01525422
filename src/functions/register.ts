import { app } from '@azure/functions';
import type { HttpFunctionOptions, ServiceBusQueueFunctionOptions, TimerFunctionOptions } from '@azure/functions';

/** One function definition, as given to the Functions host. */
export type FunctionRegistration =
  | { kind: 'serviceBusQueue'; name: string; options: ServiceBusQueueFunctionOptions }
  | { kind: 'http'; name: string; options: HttpFunctionOptions }
  | { kind: 'timer'; name: string; options: TimerFunctionOptions };

const registrations: FunctionRegistration[] = [];

/**
 * Every function goes through here: the definition is forwarded to `app` (the real host) and recorded, so the
 * in-process host (`local/`) serves exactly the same list — one definition, two hosts.
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
};

/** The functions registered so far, in registration order. */
export function registeredFunctions(): readonly FunctionRegistration[] {
  return registrations;
}
