import { ConfigError } from './errors.js';
import { parseIsoDuration } from './duration.js';

/** Queue properties that bound how long Service Bus may still deliver a message. */
interface QueueDeliveryWindow {
  /** `LockDuration`. @default PT1M */
  lockDurationMs: number;
  /** `MaxDeliveryCount`. @default 10 */
  maxDeliveryCount: number;
  /** `DefaultMessageTimeToLive`. @default P14D */
  messageTtlMs: number;
}

/** Settings of the core, resolved once at the entry point by {@link resolveCoreConfig}. */
export interface CoreConfig {
  /** Inbox consumer name (in the ids of the entries' records). Env `INBOX_CONSUMER_NAME`. @default 'order-processor' */
  consumerName: string;
  /**
   * Time, from the start of a message, by which its last store retry must have started; then it is abandoned
   * (rule 8). A throttling store (429) is waited out past it, with the lock renewed. One budget per message, shared by its entry, its drain and its alerts. Must end at least
   * {@link IN_FLIGHT_REQUEST_ALLOWANCE_MS} before the lock does. Env `TRANSIENT_RETRY_BUDGET` (ms or ISO). @default 30000
   */
  transientRetryBudgetMs: number;
  /** First backoff delay. Env `TRANSIENT_RETRY_BASE_DELAY` (ms or ISO). @default 100 */
  retryBaseDelayMs: number;
  /** Largest backoff delay. Env `TRANSIENT_RETRY_MAX_DELAY` (ms or ISO). @default 5000 */
  retryMaxDelayMs: number;
  /** Age of a gap that raises `GapTooOld`. Env `GAP_ALERT_AGE`. @default PT15M */
  gapAlertAgeMs: number;
  /** How long a gap's `GapTooOld` stays quiet while its first missing sequence is unchanged. Env `GAP_ALERT_REPEAT`. @default PT1H */
  gapAlertRepeatMs: number;
  /** The `orders` queue's delivery window. Env `ORDERS_LOCK_DURATION`, `ORDERS_MAX_DELIVERY_COUNT`, `ORDERS_MESSAGE_TTL`. */
  ordersQueue: Readonly<QueueDeliveryWindow>;
  /**
   * The relay's lag alert horizon, in seconds: `OutboxFailed` is raised when the relay's lag passes half of it.
   * Stored events never expire (an applied entry's record is kept for good), so nothing is lost past it; it says how
   * long an undelivered event may wait before operators must look. Env `OUTBOX_TTL` (seconds or ISO). @default P7D
   */
  outboxTtlSeconds: number;
}

/**
 * Room left between the end of the retry budget and the end of the message lock: a request started just before
 * the deadline may still run for the store client's request timeout (the Cosmos adapter's default is 10 s,
 * `createCosmosClient`), and the message must then still be settled under its lock. A deployment that
 * raises that timeout must keep `TRANSIENT_RETRY_BUDGET` + its timeout below `LockDuration`.
 * @internal
 */
export const IN_FLIGHT_REQUEST_ALLOWANCE_MS = 10_000;

/** Defaults of {@link CoreConfig}, in milliseconds where a duration. */
export const CORE_DEFAULTS = {
  consumerName: 'order-processor',
  transientRetryBudgetMs: 30_000,
  retryBaseDelayMs: 100,
  retryMaxDelayMs: 5_000,
  gapAlertAgeMs: 15 * 60_000,
  gapAlertRepeatMs: 60 * 60_000,
  lockDurationMs: 60_000,
  maxDeliveryCount: 10,
  messageTtlMs: 14 * 86_400_000,
  outboxTtlMs: 7 * 86_400_000,
} as const;

/** Environment-like input: `process.env`, or a record built from CLI flags. */
export type SettingsSource = Readonly<Record<string, string | undefined>>;

/**
 * Resolves the core's settings from an environment-like record into a frozen {@link CoreConfig}. Durations
 * accept ISO 8601 (`PT30S`) or, where noted, plain milliseconds. Throws a `ConfigError` (code
 * `ConfigInvalid`) naming the first unreadable setting.
 */
export function resolveCoreConfig(env: SettingsSource = {}): Readonly<CoreConfig> {
  const ordersQueue = Object.freeze({
    lockDurationMs: isoDuration(env, 'ORDERS_LOCK_DURATION', CORE_DEFAULTS.lockDurationMs),
    maxDeliveryCount: positiveInteger(env, 'ORDERS_MAX_DELIVERY_COUNT', CORE_DEFAULTS.maxDeliveryCount),
    messageTtlMs: isoDuration(env, 'ORDERS_MESSAGE_TTL', CORE_DEFAULTS.messageTtlMs),
  });
  const transientRetryBudgetMs = msOrIso(env, 'TRANSIENT_RETRY_BUDGET', CORE_DEFAULTS.transientRetryBudgetMs);
  // The budget, plus one request still in flight at its end, must end before the message lock does, or the
  // retried step races a redelivery.
  if (transientRetryBudgetMs + IN_FLIGHT_REQUEST_ALLOWANCE_MS >= ordersQueue.lockDurationMs) {
    throw new ConfigError(
      'TRANSIENT_RETRY_BUDGET',
      `must end ${IN_FLIGHT_REQUEST_ALLOWANCE_MS} ms (one request in flight) before the lock duration (${ordersQueue.lockDurationMs} ms)`,
    );
  }
  const consumerName = env.INBOX_CONSUMER_NAME || CORE_DEFAULTS.consumerName;
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(consumerName)) {
    throw new ConfigError('INBOX_CONSUMER_NAME', 'expected 1–64 characters of [A-Za-z0-9._-]');
  }
  return Object.freeze({
    consumerName,
    transientRetryBudgetMs,
    retryBaseDelayMs: msOrIso(env, 'TRANSIENT_RETRY_BASE_DELAY', CORE_DEFAULTS.retryBaseDelayMs),
    retryMaxDelayMs: msOrIso(env, 'TRANSIENT_RETRY_MAX_DELAY', CORE_DEFAULTS.retryMaxDelayMs),
    gapAlertAgeMs: isoDuration(env, 'GAP_ALERT_AGE', CORE_DEFAULTS.gapAlertAgeMs),
    gapAlertRepeatMs: isoDuration(env, 'GAP_ALERT_REPEAT', CORE_DEFAULTS.gapAlertRepeatMs),
    ordersQueue,
    outboxTtlSeconds: Math.ceil(msOrIso(env, 'OUTBOX_TTL', CORE_DEFAULTS.outboxTtlMs, 1000) / 1000),
  });
}

/**
 * The setting `name`: `fallback` when unset or empty, else what `read` makes of its text, which must be a positive
 * safe integer; anything else throws a `ConfigError` saying what was `expected`.
 */
function setting(
  env: SettingsSource,
  name: string,
  fallback: number,
  expected: string,
  read: (text: string) => number | undefined,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = read(raw.trim());
  if (value === undefined || !(value > 0) || !Number.isSafeInteger(value))
    throw new ConfigError(name, `expected ${expected}, got "${raw}"`);
  return value;
}

/** An ISO 8601 duration in milliseconds (`PT1M`), positive; `fallback` when unset or empty. */
export function isoDuration(env: SettingsSource, name: string, fallback: number): number {
  return setting(env, name, fallback, 'a positive ISO 8601 duration such as PT1M', parseIsoDuration);
}

/** A plain number is in `unitMs` (milliseconds by default); otherwise an ISO 8601 duration. */
export function msOrIso(env: SettingsSource, name: string, fallback: number, unitMs = 1): number {
  const read = (text: string) => (/^\d+$/.test(text) ? Number(text) * unitMs : parseIsoDuration(text));
  return setting(env, name, fallback, 'a positive number or an ISO 8601 duration', read);
}

function positiveInteger(env: SettingsSource, name: string, fallback: number): number {
  return setting(env, name, fallback, 'a positive integer', (text) => (/^\d+$/.test(text) ? Number(text) : undefined));
}
