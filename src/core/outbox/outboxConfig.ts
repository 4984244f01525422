import type { SettingsSource } from '../config.js';
import { parseIsoDuration } from '../duration.js';
import { ConfigError } from '../errors.js';
import type { HoldBackoff } from './holdMarker.js';
import { HOLD_RETRY_DEFAULTS, WEBHOOK_TIMEOUT_DEFAULT_MS } from './outboxDefaults.js';
import type { OutboxRelayOptions } from './outboxRelay.js';

/** Settings of the outbox relay and its webhook, resolved once by {@link resolveOutboxConfig}. */
export interface OutboxConfig extends OutboxRelayOptions {
  /** Where every order event is also POSTed; no webhook when unset. Env `OUTBOX_WEBHOOK_URL`. @default undefined */
  webhookUrl: string | undefined;
  /**
   * The Standard Webhooks signing secret (`whsec_` + base64): with it every POST carries `webhook-id`,
   * `webhook-timestamp` and `webhook-signature`. Env `OUTBOX_WEBHOOK_SECRET`. @default undefined (unsigned)
   */
  webhookSecret: string | undefined;
  /** How long one webhook POST may take before the attempt fails. Env `OUTBOX_WEBHOOK_TIMEOUT`. @default PT10S */
  webhookTimeoutMs: number;
  /**
   * Backoff of a hold's releases by the `outboxHoldRetry` timer: the first after `firstMs` (env
   * `OUTBOX_HOLD_RETRY_FIRST`, default PT1M), doubling after each failed one up to `maxMs` (env
   * `OUTBOX_HOLD_RETRY_MAX`, default PT5M), half of each delay jitter.
   */
  holdRetry: HoldBackoff;
}

/** Defaults of {@link resolveOutboxConfig}. @internal */
export const OUTBOX_DEFAULTS = {
  retryBudgetMs: 10_000,
  webhookTimeoutMs: WEBHOOK_TIMEOUT_DEFAULT_MS,
  holdRetryFirstMs: HOLD_RETRY_DEFAULTS.firstMs,
  holdRetryMaxMs: HOLD_RETRY_DEFAULTS.maxMs,
} as const;

/**
 * Resolves the relay's settings from `env`: `OUTBOX_RETRY_BUDGET` (PT10S), `OUTBOX_WEBHOOK_URL`,
 * `OUTBOX_WEBHOOK_SECRET`, `OUTBOX_WEBHOOK_TIMEOUT` (PT10S), `OUTBOX_HOLD_RETRY_FIRST` (PT1M), `OUTBOX_HOLD_RETRY_MAX` (PT5M, not below the
 * first). Durations are ISO 8601 or plain milliseconds. (`OUTBOX_TTL`, which the processor writes, is the core's.)
 * Throws a `ConfigError` naming the first unusable setting.
 */
export function resolveOutboxConfig(env: SettingsSource): Readonly<OutboxConfig> {
  const firstMs = duration(env, 'OUTBOX_HOLD_RETRY_FIRST', OUTBOX_DEFAULTS.holdRetryFirstMs);
  const maxMs = duration(env, 'OUTBOX_HOLD_RETRY_MAX', OUTBOX_DEFAULTS.holdRetryMaxMs);
  if (maxMs < firstMs)
    throw new ConfigError(
      'OUTBOX_HOLD_RETRY_MAX',
      `must not be shorter than OUTBOX_HOLD_RETRY_FIRST (${firstMs} ms), got ${maxMs} ms`,
    );
  return Object.freeze({
    retryBudgetMs: duration(env, 'OUTBOX_RETRY_BUDGET', OUTBOX_DEFAULTS.retryBudgetMs),
    webhookUrl: webhookUrl(env),
    webhookSecret: webhookSecret(env),
    webhookTimeoutMs: duration(env, 'OUTBOX_WEBHOOK_TIMEOUT', OUTBOX_DEFAULTS.webhookTimeoutMs),
    holdRetry: Object.freeze({ firstMs, maxMs }),
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
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ConfigError('OUTBOX_WEBHOOK_URL', 'expected an absolute http(s) URL');
  return url.toString();
}

/** Standard Webhooks: `whsec_` (optional) and the key in base64. Never echoed in an error: it is a secret. */
const WEBHOOK_SECRET = /^(?:whsec_)?((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;

function webhookSecret(env: SettingsSource): string | undefined {
  const raw = env.OUTBOX_WEBHOOK_SECRET?.trim();
  if (!raw) return undefined;
  const key = WEBHOOK_SECRET.exec(raw)?.[1];
  if (key === undefined || key.length === 0) {
    throw new ConfigError(
      'OUTBOX_WEBHOOK_SECRET',
      'expected a Standard Webhooks secret: "whsec_" followed by the key in base64',
    );
  }
  return raw;
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
