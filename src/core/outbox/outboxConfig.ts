import type { CoreConfig, SettingsSource } from '../config.js';
import { parseIsoDuration } from '../duration.js';
import { ConfigError } from '../errors.js';
import type { OutboxDispatchOptions } from './outboxDispatch.js';

/** Settings of the outbox dispatcher and its webhook target, resolved once by {@link resolveOutboxConfig}. */
export interface OutboxConfig extends OutboxDispatchOptions {
  /** Where every order event is also POSTed; no webhook when unset. Env `OUTBOX_WEBHOOK_URL`. @default undefined */
  webhookUrl: string | undefined;
  /** How long one webhook POST may take before the attempt fails. Env `OUTBOX_WEBHOOK_TIMEOUT`. @default PT10S */
  webhookTimeoutMs: number;
  /** Largest number of open records one sweep reads. Env `OUTBOX_SWEEP_LIMIT`. @default 1000 */
  sweepLimit: number;
}

/** Defaults of the settings {@link resolveOutboxConfig} adds to the core's lease and attempts. */
export const OUTBOX_DEFAULTS = {
  backoffBaseMs: 1_000,
  backoffMaxMs: 5 * 60_000,
  completedTtlSeconds: 7 * 86_400,
  webhookTimeoutMs: 10_000,
  sweepLimit: 1000,
} as const;

/**
 * Resolves the outbox settings: lease and attempts from the core's config (`OUTBOX_LEASE`, `OUTBOX_MAX_ATTEMPTS`),
 * the rest from `env` — `OUTBOX_BACKOFF_BASE` (PT1S), `OUTBOX_BACKOFF_MAX` (PT5M), `OUTBOX_COMPLETED_TTL` (P7D),
 * `OUTBOX_WEBHOOK_URL`, `OUTBOX_WEBHOOK_TIMEOUT` (PT10S), `OUTBOX_SWEEP_LIMIT` (1000). Durations are ISO 8601 or
 * plain milliseconds. Throws a `ConfigError` naming the first unusable setting.
 */
export function resolveOutboxConfig(env: SettingsSource, core: Pick<CoreConfig, 'outboxLeaseMs' | 'outboxMaxAttempts'>): Readonly<OutboxConfig> {
  const webhookTimeoutMs = duration(env, 'OUTBOX_WEBHOOK_TIMEOUT', OUTBOX_DEFAULTS.webhookTimeoutMs);
  // A POST still running when the lease lapses could overlap a reclaimed attempt of the same record.
  if (webhookTimeoutMs >= core.outboxLeaseMs) {
    throw new ConfigError('OUTBOX_WEBHOOK_TIMEOUT', `must be below the outbox lease (${core.outboxLeaseMs} ms)`);
  }
  const backoffBaseMs = duration(env, 'OUTBOX_BACKOFF_BASE', OUTBOX_DEFAULTS.backoffBaseMs);
  const backoffMaxMs = duration(env, 'OUTBOX_BACKOFF_MAX', OUTBOX_DEFAULTS.backoffMaxMs);
  if (backoffMaxMs < backoffBaseMs) throw new ConfigError('OUTBOX_BACKOFF_MAX', 'must not be below OUTBOX_BACKOFF_BASE');
  return Object.freeze({
    leaseMs: core.outboxLeaseMs,
    maxAttempts: core.outboxMaxAttempts,
    backoffBaseMs,
    backoffMaxMs,
    completedTtlSeconds: Math.ceil(duration(env, 'OUTBOX_COMPLETED_TTL', OUTBOX_DEFAULTS.completedTtlSeconds * 1000) / 1000),
    webhookUrl: webhookUrl(env),
    webhookTimeoutMs,
    sweepLimit: count(env, 'OUTBOX_SWEEP_LIMIT', OUTBOX_DEFAULTS.sweepLimit),
  });
}

function webhookUrl(env: SettingsSource): string | undefined {
  const raw = env.OUTBOX_WEBHOOK_URL?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('OUTBOX_WEBHOOK_URL', 'expected an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError('OUTBOX_WEBHOOK_URL', 'expected an absolute http(s) URL');
  return url.toString();
}

function duration(env: SettingsSource, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const ms = /^\d+$/.test(raw) ? Number(raw) : parseIsoDuration(raw);
  if (ms === undefined || !Number.isSafeInteger(ms) || ms <= 0) {
    throw new ConfigError(name, `expected a positive number of milliseconds or an ISO 8601 duration, got "${raw}"`);
  }
  return ms;
}

function count(env: SettingsSource, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < 1) throw new ConfigError(name, `expected a positive integer, got "${raw}"`);
  return value;
}
