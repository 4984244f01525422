import { msOrIso, type SettingsSource } from '../config.js';
import { ConfigError } from '../errors.js';

/** How a hold's releases back off (`OUTBOX_HOLD_RETRY_FIRST`, `OUTBOX_HOLD_RETRY_MAX`). */
export interface HoldBackoff {
  /** Delay before the first release; doubles after each failed one. @default 60000 */
  firstMs: number;
  /** Longest delay between releases. @default 300000 */
  maxMs: number;
}

/** Settings of the outbox relay and its webhook, resolved once by {@link resolveOutboxConfig}. */
export interface OutboxConfig {
  /** Time spent retrying a failing target before it holds the order. Env `OUTBOX_RETRY_BUDGET`. @default PT10S */
  retryBudgetMs: number;
  /** Where every order event is also POSTed; no webhook when unset. Env `OUTBOX_WEBHOOK_URL`. @default undefined */
  webhookUrl: string | undefined;
  /**
   * The Standard Webhooks signing secret (`whsec_` + base64): with it every POST carries `webhook-id`,
   * `webhook-timestamp` and `webhook-signature`. Env `OUTBOX_WEBHOOK_SECRET`. @default undefined (unsigned)
   */
  webhookSecret: string | undefined;
  /** How long one webhook POST (or one send of a release) may take. Env `OUTBOX_WEBHOOK_TIMEOUT`. @default PT10S */
  webhookTimeoutMs: number;
  /**
   * Backoff of a hold's releases by the `outboxHoldRetry` timer: the first after `firstMs` (env
   * `OUTBOX_HOLD_RETRY_FIRST`, default PT1M), doubling after each failed one up to `maxMs` (env
   * `OUTBOX_HOLD_RETRY_MAX`, default PT5M), half of each delay jitter.
   */
  holdRetry: HoldBackoff;
}

/** How long one webhook POST (or one send of a release) may take by default: PT10S. */
export const WEBHOOK_TIMEOUT_DEFAULT_MS = 10_000;

/** The outbox's defaults, in one place: the relay, a release and the webhook poster fall back on them too. */
export const OUTBOX_DEFAULTS = {
  retryBudgetMs: 10_000,
  webhookTimeoutMs: WEBHOOK_TIMEOUT_DEFAULT_MS,
  holdRetry: Object.freeze({ firstMs: 60_000, maxMs: 300_000 }),
} as const;

/**
 * Resolves the relay's settings from `env`: `OUTBOX_RETRY_BUDGET` (PT10S), `OUTBOX_WEBHOOK_URL`,
 * `OUTBOX_WEBHOOK_SECRET`, `OUTBOX_WEBHOOK_TIMEOUT` (PT10S), `OUTBOX_HOLD_RETRY_FIRST` (PT1M), `OUTBOX_HOLD_RETRY_MAX` (PT5M, not below the
 * first). Durations are ISO 8601 or plain milliseconds. (`OUTBOX_TTL`, which the processor writes, is the core's.)
 * Throws a `ConfigError` naming the first unusable setting.
 */
export function resolveOutboxConfig(env: SettingsSource): Readonly<OutboxConfig> {
  const firstMs = msOrIso(env, 'OUTBOX_HOLD_RETRY_FIRST', OUTBOX_DEFAULTS.holdRetry.firstMs);
  const maxMs = msOrIso(env, 'OUTBOX_HOLD_RETRY_MAX', OUTBOX_DEFAULTS.holdRetry.maxMs);
  if (maxMs < firstMs)
    throw new ConfigError(
      'OUTBOX_HOLD_RETRY_MAX',
      `must not be shorter than OUTBOX_HOLD_RETRY_FIRST (${firstMs} ms), got ${maxMs} ms`,
    );
  return Object.freeze({
    retryBudgetMs: msOrIso(env, 'OUTBOX_RETRY_BUDGET', OUTBOX_DEFAULTS.retryBudgetMs),
    webhookUrl: webhookUrl(env),
    webhookSecret: webhookSecret(env),
    webhookTimeoutMs: msOrIso(env, 'OUTBOX_WEBHOOK_TIMEOUT', OUTBOX_DEFAULTS.webhookTimeoutMs),
    holdRetry: Object.freeze({ firstMs, maxMs }),
  });
}

function webhookUrl(env: SettingsSource): string | undefined {
  const raw = env.OUTBOX_WEBHOOK_URL?.trim();
  if (!raw) return undefined;
  const url = URL.parse(raw);
  if (url?.protocol !== 'https:' && url?.protocol !== 'http:')
    throw new ConfigError('OUTBOX_WEBHOOK_URL', 'expected an absolute http(s) URL');
  return url.toString();
}

/** Standard Webhooks: `whsec_` (optional) and the key in base64. Never echoed in an error: it is a secret. */
const WEBHOOK_SECRET = /^(?:whsec_)?((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;

function webhookSecret(env: SettingsSource): string | undefined {
  const raw = env.OUTBOX_WEBHOOK_SECRET?.trim();
  if (!raw) return undefined;
  if (!WEBHOOK_SECRET.exec(raw)?.[1]) {
    throw new ConfigError(
      'OUTBOX_WEBHOOK_SECRET',
      'expected a Standard Webhooks secret: "whsec_" followed by the key in base64',
    );
  }
  return raw;
}
