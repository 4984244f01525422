import type {
  ServiceBusClient,
  ServiceBusReceivedMessage,
  ServiceBusReceiver,
  ServiceBusSessionReceiver,
} from '@azure/service-bus';
import type { ServiceBusHostOptions } from '../config/serviceBusHostOptions.js';
import type { SettlementQueue } from './settlementQueue.js';
import type { TriggerSource } from './triggerEntity.js';

/** A running Service Bus trigger. */
export interface TriggerListener {
  /** Stops taking messages, lets in-flight handlers finish and settle, then closes the receivers. */
  close(): Promise<void>;
}

/** A message a listener holds while its function runs: the function's settlements are executed on its receiver. */
export interface HeldMessage {
  receiver: ServiceBusReceiver;
  /** The receiver's settlement queue (see settlementQueue.ts for why). */
  queue: SettlementQueue;
  /** The message exactly as the SDK receiver delivered it (settlement needs the SDK's own object). */
  message: ServiceBusReceivedMessage;
  /** The session receiver, for a session trigger's message. */
  session?: ServiceBusSessionReceiver;
}

/**
 * Hands a message to the main thread, which invokes the function with it; resolves once the invocation is over (the
 * function returned and the host settled what it settles), saying whether the function released its session.
 */
type Dispatch = (held: HeldMessage) => Promise<{ releaseSession: boolean }>;

/** A listener's log lines: in the host's log, bound to the trigger's function and entity. */
export interface TriggerLog {
  debug(fields: Record<string, unknown>, msg: string): void;
  warn(fields: Record<string, unknown>, msg: string): void;
  error(fields: Record<string, unknown>, msg: string): void;
}

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
