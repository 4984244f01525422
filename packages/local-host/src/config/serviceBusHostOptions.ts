import { readFile } from 'node:fs/promises';
import { parseTimeSpan } from './timeSpan.js';

/** The `extensions.serviceBus` settings of host.json the in-process host honours, resolved to numbers. */
export interface ServiceBusHostOptions {
  /** Concurrent session receivers per session-enabled trigger. @default 8 */
  readonly maxConcurrentSessions: number;
  /** Concurrent handler calls per non-session trigger. @default 16 */
  readonly maxConcurrentCalls: number;
  /** A session receiver releases its session after this long without a message. @default 60000 (the SDK's try timeout) */
  readonly sessionIdleTimeoutMs: number;
  /** Upper bound of automatic message and session lock renewal. @default 300000 */
  readonly maxAutoLockRenewalDurationMs: number;
  /** Complete on success and abandon on a thrown error unless the handler settled. @default true */
  readonly autoCompleteMessages: boolean;
}

/** The Functions host's defaults (the .NET extension's `ServiceBusOptions`, one core for `maxConcurrentCalls`). @internal */
export const defaultServiceBusHostOptions: ServiceBusHostOptions = Object.freeze({
  maxConcurrentSessions: 8,
  maxConcurrentCalls: 16,
  sessionIdleTimeoutMs: 60_000,
  maxAutoLockRenewalDurationMs: 300_000,
  autoCompleteMessages: true,
});

/** Resolves `extensions.serviceBus` of a parsed host.json over the host's defaults. @internal */
export function serviceBusHostOptionsFrom(hostJson: unknown): ServiceBusHostOptions {
  const section = readSection(hostJson);
  const d = defaultServiceBusHostOptions;
  return Object.freeze({
    maxConcurrentSessions:
      positiveInt(section.maxConcurrentSessions, 'maxConcurrentSessions') ?? d.maxConcurrentSessions,
    maxConcurrentCalls: positiveInt(section.maxConcurrentCalls, 'maxConcurrentCalls') ?? d.maxConcurrentCalls,
    sessionIdleTimeoutMs: timeSpan(section.sessionIdleTimeout, 'sessionIdleTimeout') ?? d.sessionIdleTimeoutMs,
    maxAutoLockRenewalDurationMs:
      timeSpan(section.maxAutoLockRenewalDuration, 'maxAutoLockRenewalDuration') ?? d.maxAutoLockRenewalDurationMs,
    autoCompleteMessages:
      typeof section.autoCompleteMessages === 'boolean' ? section.autoCompleteMessages : d.autoCompleteMessages,
  });
}

/** Reads host.json from disk and resolves its Service Bus settings. */
export async function loadServiceBusHostOptions(hostJsonPath: string): Promise<ServiceBusHostOptions> {
  return serviceBusHostOptionsFrom(JSON.parse(await readFile(hostJsonPath, 'utf8')) as unknown);
}

function readSection(hostJson: unknown): Record<string, unknown> {
  const extensions = isRecord(hostJson) ? hostJson.extensions : undefined;
  const section = isRecord(extensions) ? extensions.serviceBus : undefined;
  return isRecord(section) ? section : {};
}

function positiveInt(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new TypeError(`host.json extensions.serviceBus.${name}: expected a positive integer, got ${String(value)}`);
  }
  return value;
}

function timeSpan(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string')
    throw new TypeError(`host.json extensions.serviceBus.${name}: expected a TimeSpan string`);
  return parseTimeSpan(value, `host.json extensions.serviceBus.${name}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
