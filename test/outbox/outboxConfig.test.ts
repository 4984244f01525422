import { describe, expect, it } from 'vitest';
import { resolveOutboxConfig } from '../../src/core/index.js';
import { OUTBOX_DEFAULTS } from '../../src/core/outbox/outboxConfig.js';
import { resolveCoreConfig } from '../../src/core/config.js';

describe('outbox settings', () => {
  it('defaults to a 10 s retry budget, a 10 s webhook timeout, no webhook, holds retried from 1 min up to 5 min, and records living 7 days', () => {
    expect(resolveOutboxConfig({})).toEqual({
      retryBudgetMs: OUTBOX_DEFAULTS.retryBudgetMs,
      webhookUrl: undefined,
      webhookSecret: undefined,
      webhookTimeoutMs: 10_000,
      holdRetry: { firstMs: 60_000, maxMs: 300_000 },
    });
    expect(resolveCoreConfig({}).outboxTtlSeconds).toBe(7 * 86_400);
  });

  it('reads ISO durations or milliseconds, the webhook URL, and OUTBOX_TTL in seconds or ISO', () => {
    const env = {
      OUTBOX_RETRY_BUDGET: 'PT2S',
      OUTBOX_WEBHOOK_URL: 'http://127.0.0.1:9/hook',
      OUTBOX_WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      OUTBOX_WEBHOOK_TIMEOUT: '500',
      OUTBOX_HOLD_RETRY_FIRST: 'PT30S',
      OUTBOX_HOLD_RETRY_MAX: 'PT2H',
    };
    expect(resolveOutboxConfig(env)).toEqual({
      retryBudgetMs: 2_000,
      webhookUrl: 'http://127.0.0.1:9/hook',
      webhookSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      webhookTimeoutMs: 500,
      holdRetry: { firstMs: 30_000, maxMs: 7_200_000 },
    });
    expect(resolveCoreConfig({ OUTBOX_TTL: 'P1D' }).outboxTtlSeconds).toBe(86_400);
    expect(resolveCoreConfig({ OUTBOX_TTL: '3600' }).outboxTtlSeconds).toBe(3_600);
  });

  it.each([
    [{ OUTBOX_WEBHOOK_URL: 'ftp://x/y' }, 'OUTBOX_WEBHOOK_URL'],
    [{ OUTBOX_WEBHOOK_URL: 'not a url' }, 'OUTBOX_WEBHOOK_URL'],
    [{ OUTBOX_WEBHOOK_SECRET: 'whsec_not base64!' }, 'OUTBOX_WEBHOOK_SECRET'],
    [{ OUTBOX_WEBHOOK_SECRET: 'whsec_' }, 'OUTBOX_WEBHOOK_SECRET'],
    [{ OUTBOX_RETRY_BUDGET: 'soon' }, 'OUTBOX_RETRY_BUDGET'],
    [{ OUTBOX_WEBHOOK_TIMEOUT: '0' }, 'OUTBOX_WEBHOOK_TIMEOUT'],
    [{ OUTBOX_HOLD_RETRY_FIRST: 'later' }, 'OUTBOX_HOLD_RETRY_FIRST'],
    [{ OUTBOX_HOLD_RETRY_FIRST: 'PT10M', OUTBOX_HOLD_RETRY_MAX: 'PT5M' }, 'OUTBOX_HOLD_RETRY_MAX'],
  ])('refuses %o naming %s', (env, setting) => {
    expect(() => resolveOutboxConfig(env)).toThrow(
      expect.objectContaining({ code: 'ConfigInvalid', message: expect.stringContaining(setting) }),
    );
  });

  it('never repeats the secret in its error', () => {
    expect(() => resolveOutboxConfig({ OUTBOX_WEBHOOK_SECRET: 'whsec_s3cr3t-value' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('s3cr3t') }),
    );
  });

  it('refuses an unusable OUTBOX_TTL naming it', () => {
    expect(() => resolveCoreConfig({ OUTBOX_TTL: 'forever' })).toThrow(
      expect.objectContaining({ code: 'ConfigInvalid', message: expect.stringContaining('OUTBOX_TTL') }),
    );
  });
});
