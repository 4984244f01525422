/**
 * What the host's main thread and its Service Bus trigger thread say to each other over the thread's port: the
 * thread holds the receivers and hands the main thread each message to invoke the function with; the function's
 * settlement actions come back as requests, each answered once, as the Functions host and its Node worker talk over
 * gRPC (`InvocationRequest`, and the extension's `Settlement` service). Every value here is structured-clone safe.
 */
import { ServiceBusError } from '@azure/service-bus';
import type { DeadLetterOptions, ServiceBusErrorCode } from '@azure/service-bus';
import type { ServiceBusHostOptions } from '../config/serviceBusHostOptions.js';
import type { PropertiesToModify } from './propertiesToModify.js';
import type { ServiceBusConnection } from './serviceBusClients.js';
import type { TriggerSource } from './triggerEntity.js';
import type { WireMessage } from './wireMessage.js';

/** The thread's `workerData`: the triggers to listen for, by index, and how to reach their entities. */
export interface TriggerThreadData {
  triggers: TriggerSource[];
  /** Each trigger's `connection` setting, resolved. */
  connections: Record<string, ServiceBusConnection>;
  hostOptions: ServiceBusHostOptions;
  /** Levels the host's logger writes: the thread posts lines of these only. */
  logLevels: TriggerLogLevel[];
}

export type TriggerLogLevel = 'debug' | 'warn' | 'error';

/** A settlement action of the function, executed on the receiver that holds the message. */
export type SettlementRequest =
  | { action: 'complete' }
  | { action: 'abandon'; propertiesToModify?: PropertiesToModify }
  | { action: 'deadLetter'; details: DeadLetterOptions & PropertiesToModify }
  | { action: 'defer'; propertiesToModify?: PropertiesToModify }
  | { action: 'renewMessageLock' }
  | { action: 'setSessionState'; state: Uint8Array }
  | { action: 'renewSessionLock' };

/** What the main thread tells the trigger thread. */
export type TriggerHostMessage =
  | { kind: 'settle'; request: number; invocation: number; settlement: SettlementRequest }
  /** The invocation is over (the function returned, the host settled what it settles); the message is forgotten. */
  | { kind: 'invoked'; invocation: number; releaseSession: boolean }
  /** Stop taking messages, let invocations in flight finish and settle, close the receivers. */
  | { kind: 'close' };

/** What the trigger thread tells the main thread. */
export type TriggerThreadMessage =
  | { kind: 'invoke'; invocation: number; trigger: number; message: WireMessage; session: boolean }
  /** The answer to one `settle`: the session's new lock expiry for `renewSessionLock`. */
  | { kind: 'settled'; request: number; lockedUntil?: Date; error?: WireError }
  /** A listener's log line, for the host's logger (bound to the trigger's function and entity there). */
  | { kind: 'log'; trigger: number; level: TriggerLogLevel; fields: Record<string, unknown>; msg: string }
  /** The listeners and their clients are closed (or closing one failed: `error`); the thread may end. */
  | { kind: 'closed'; error?: WireError };

/** An error as it crosses the port: its name, message and stack, and its own fields (`code`, `retryable`, …). */
export interface WireError {
  name: string;
  message: string;
  stack?: string;
  fields: Record<string, unknown>;
}

/** The form of `error` that crosses the port. */
export function toWireError(error: unknown): WireError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) {
    if (value === undefined || typeof value === 'function') continue;
    // Only what clones: an SDK error's `code`, `retryable`, `info`; not its AMQP connection or its cause's object.
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) fields[key] = value;
  }
  return { name: error.name, message: error.message, stack: error.stack, fields };
}

/** An `Error` again, with the name, stack and fields it had; a `ServiceBusError` is one again, as the SDK threw it. */
export function fromWireError(wire: WireError): Error {
  const error =
    wire.name === 'ServiceBusError'
      ? new ServiceBusError(wire.message, wire.fields.code as ServiceBusErrorCode)
      : new Error(wire.message);
  Object.defineProperty(error, 'name', { value: wire.name, enumerable: false, writable: true, configurable: true });
  if (wire.stack !== undefined) error.stack = wire.stack;
  return Object.assign(error, wire.fields);
}
