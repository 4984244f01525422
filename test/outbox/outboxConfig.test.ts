import { describe, expect, it } from 'vitest';
import { resolveCoreConfig } from '../../src/core/config.js';
import { OUTBOX_DEFAULTS, resolveOutboxConfig } from '../../src/core/outbox/outboxConfig.js';

const core = resolveCoreConfig({});

describe('outbox settings', () => {
  it('defaults to a 60 s lease, 10 attempts, 1 s..5 min backoff, 7 days for completed records and no webhook', () => {
    expect(resolveOutboxConfig({}, core)).toEqual({
      leaseMs: 60_000,
      maxAttempts: 10,
      backoffBaseMs: 1_000,
      backoffMaxMs: 300_000,
      completedTtlSeconds: 604_800,
      webhookUrl: undefined,
      webhookTimeoutMs: OUTBOX_DEFAULTS.webhookTimeoutMs,
      sweepLimit: 1000,
    });
  });

  it('reads ISO durations or milliseconds, the webhook URL and the sweep limit', () => {
    const env = {
      OUTBOX_LEASE: 'PT2S',
      OUTBOX_MAX_ATTEMPTS: '3',
      OUTBOX_BACKOFF_BASE: '50',
      OUTBOX_BACKOFF_MAX: 'PT1S',
      OUTBOX_COMPLETED_TTL: 'P1D',
      OUTBOX_WEBHOOK_URL: 'http://127.0.0.1:9/hook',
      OUTBOX_WEBHOOK_TIMEOUT: '500',
      OUTBOX_SWEEP_LIMIT: '20',
    };
    expect(resolveOutboxConfig(env, resolveCoreConfig(env))).toEqual({
      leaseMs: 2_000,
      maxAttempts: 3,
      backoffBaseMs: 50,
      backoffMaxMs: 1_000,
      completedTtlSeconds: 86_400,
      webhookUrl: 'http://127.0.0.1:9/hook',
      webhookTimeoutMs: 500,
      sweepLimit: 20,
    });
  });

  it.each([
    [{ OUTBOX_WEBHOOK_URL: 'ftp://x/y' }, 'OUTBOX_WEBHOOK_URL'],
    [{ OUTBOX_WEBHOOK_URL: 'not a url' }, 'OUTBOX_WEBHOOK_URL'],
    [{ OUTBOX_WEBHOOK_TIMEOUT: 'PT1M' }, 'OUTBOX_WEBHOOK_TIMEOUT'],
    [{ OUTBOX_BACKOFF_BASE: 'PT10M' }, 'OUTBOX_BACKOFF_MAX'],
    [{ OUTBOX_BACKOFF_BASE: 'soon' }, 'OUTBOX_BACKOFF_BASE'],
    [{ OUTBOX_SWEEP_LIMIT: '0' }, 'OUTBOX_SWEEP_LIMIT'],
  ])('refuses %o naming %s', (env, setting) => {
    expect(() => resolveOutboxConfig(env, core)).toThrow(expect.objectContaining({ code: 'ConfigInvalid', setting }));
  });
});
