/**
 * The host settings a bench run measures: the repository's host.json, as the in-process host reads it, with the
 * command line's overrides on top, and the header that says which is which.
 */
import { readFile } from 'node:fs/promises';
import { loadServiceBusHostOptions, type ServiceBusHostOptions } from '@ledger-convoy/local-host';
import { repoPath } from '@ledger-convoy/local-host';

/** Overrides from the command line (`--sessions`, `--session-idle-ms`); absent = host.json's value. */
export type BenchOverrides = Partial<Pick<ServiceBusHostOptions, 'maxConcurrentSessions' | 'sessionIdleTimeoutMs'>>;

/** host.json's Service Bus settings, the overrides, and the result in force. */
export interface BenchSettings {
  hostJsonFile: string;
  /** host.json as it is on disk, resolved over the host's defaults. */
  hostJson: ServiceBusHostOptions;
  /** host.json's `prefetchCount` (absent = 0); the in-process host never prefetches, so only 0 can be measured. */
  prefetchCount: number;
  overrides: BenchOverrides;
  /** What every phase runs with. */
  inForce: ServiceBusHostOptions;
}

/** Reads host.json the way `startLocalHost` does and applies the overrides. */
export async function loadBenchSettings(overrides: BenchOverrides): Promise<BenchSettings> {
  const hostJsonFile = repoPath('host.json');
  const hostJson = await loadServiceBusHostOptions(hostJsonFile);
  const prefetchCount = prefetchCountOf(JSON.parse(await readFile(hostJsonFile, 'utf8')) as unknown);
  if (prefetchCount !== 0) {
    throw new Error(
      `host.json extensions.serviceBus.prefetchCount is ${prefetchCount}: the in-process host does not prefetch, so the bench can only measure 0`,
    );
  }
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) as BenchOverrides;
  return {
    hostJsonFile,
    hostJson,
    prefetchCount,
    overrides: defined,
    inForce: Object.freeze({ ...hostJson, ...defined }),
  };
}

/** The header: Node, the host.json values in force, and one OVERRIDE line per command-line override. */
export function headerLines(settings: BenchSettings): string[] {
  const h = settings.hostJson;
  const lines = [
    `Node ${process.version}; ${settings.hostJsonFile}, extensions.serviceBus: maxConcurrentSessions ${h.maxConcurrentSessions}, ` +
      `sessionIdleTimeout ${ms(h.sessionIdleTimeoutMs)}, maxAutoLockRenewalDuration ${ms(h.maxAutoLockRenewalDurationMs)}, ` +
      `prefetchCount ${settings.prefetchCount}, maxConcurrentCalls ${h.maxConcurrentCalls}`,
  ];
  const o = settings.overrides;
  if (o.maxConcurrentSessions !== undefined) {
    lines.push(`OVERRIDE: maxConcurrentSessions ${o.maxConcurrentSessions} (host.json: ${h.maxConcurrentSessions})`);
  }
  if (o.sessionIdleTimeoutMs !== undefined) {
    lines.push(`OVERRIDE: sessionIdleTimeout ${ms(o.sessionIdleTimeoutMs)} (host.json: ${ms(h.sessionIdleTimeoutMs)})`);
  }
  if (lines.length === 1) lines.push('No overrides: every figure is host.json as it stands.');
  return lines;
}

/**
 * A phase's time limit. A session slot that is not handed the session back idles `sessionIdleTimeout` after an
 * order's last entry before it takes the next order, so without hand-offs a workload needs
 * ceil(orders / sessions) × sessionIdleTimeout; the limit allows four times that, plus 50 ms per entry and two
 * minutes, so it holds on a slow machine whatever the code hands off, and still ends a phase that is stuck.
 */
export function phaseTimeoutMs(settings: BenchSettings, orders: number, entries: number): number {
  const idleRounds = Math.ceil(orders / settings.inForce.maxConcurrentSessions);
  return 120_000 + 4 * idleRounds * settings.inForce.sessionIdleTimeoutMs + 50 * entries;
}

/** `5 s`, `100 ms`, `5 min`. */
function ms(value: number): string {
  if (value >= 60_000 && value % 60_000 === 0) return `${value / 60_000} min`;
  if (value >= 1000 && value % 1000 === 0) return `${value / 1000} s`;
  return `${value} ms`;
}

function prefetchCountOf(hostJson: unknown): number {
  const section = (hostJson as { extensions?: { serviceBus?: { prefetchCount?: unknown } } } | null)?.extensions
    ?.serviceBus;
  const value = section?.prefetchCount ?? 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new TypeError(`host.json extensions.serviceBus.prefetchCount: expected an integer ≥ 0, got ${String(value)}`);
  }
  return value;
}
