import { app } from '@azure/functions';
import type {
  CosmosDBv4FunctionOptions,
  HttpFunctionOptions,
  ServiceBusQueueFunctionOptions,
  ServiceBusTopicFunctionOptions,
  TimerFunctionOptions,
} from '@azure/functions';

/** One function definition, as given to the Functions host. */
export type FunctionRegistration =
  | { kind: 'serviceBusQueue'; name: string; options: ServiceBusQueueFunctionOptions }
  | { kind: 'serviceBusTopic'; name: string; options: ServiceBusTopicFunctionOptions }
  | { kind: 'http'; name: string; options: HttpFunctionOptions }
  | { kind: 'timer'; name: string; options: TimerFunctionOptions }
  | { kind: 'cosmosDB'; name: string; options: CosmosDBv4FunctionOptions };

/** The app as a host runs it: its functions and its lifecycle hooks. */
export interface HostedApp {
  readonly functions: readonly FunctionRegistration[];
  /** The `appStart` hook: run once the app is loaded, before any invocation. Never rejects: the host must start. */
  start(): Promise<void>;
  /** The `appTerminate` hook: run on a graceful shutdown. Never rejects: shutdown must go on. */
  terminate(): Promise<void>;
}

/**
 * Hands the app to the Functions host: every function to `app.*`, the hooks to `app.hook.*`. The in-process host
 * (`local/`) takes the same {@link HostedApp} directly — one definition, two hosts.
 */
export function registerWithHost(hosted: HostedApp): void {
  for (const f of hosted.functions) {
    if (f.kind === 'serviceBusQueue') app.serviceBusQueue(f.name, f.options);
    else if (f.kind === 'serviceBusTopic') app.serviceBusTopic(f.name, f.options);
    else if (f.kind === 'http') app.http(f.name, f.options);
    else if (f.kind === 'timer') app.timer(f.name, f.options);
    else app.cosmosDB(f.name, f.options);
  }
  app.hook.appStart(() => hosted.start());
  app.hook.appTerminate(() => hosted.terminate());
}
