import { describe, expect, it } from 'vitest';
import { OUTBOX_DEFAULTS, resolveCoreConfig, resolveOutboxConfig } from '../../src/core/index.js';

describe('outbox settings', () => {
  it('defaults to a 10 s retry budget, a 10 s webhook timeout, no webhook, and records living 7 days', () => {
    expect(resolveOutboxConfig({})).toEqual({ retryBudgetMs: OUTBOX_DEFAULTS.retryBudgetMs, webhookUrl: undefined, webhookTimeoutMs: 10_000 });
    expect(resolveCoreConfig({}).outboxTtlSeconds).toBe(7 * 86_400);
  });

  it('reads ISO durations or milliseconds, the webhook URL, and OUTBOX_TTL in seconds or ISO', () => {
    expect(resolveOutboxConfig({ OUTBOX_RETRY_BUDGET: 'PT2S', OUTBOX_WEBHOOK_URL: 'http://127.0.0.1:9/hook', OUTBOX_WEBHOOK_TIMEOUT: '500' })).toEqual({
      retryBudgetMs: 2_000,
      webhookUrl: 'http://127.0.0.1:9/hook',
      webhookTimeoutMs: 500,
    });
    expect(resolveCoreConfig({ OUTBOX_TTL: 'P1D' }).outboxTtlSeconds).toBe(86_400);
    expect(resolveCoreConfig({ OUTBOX_TTL: '3600' }).outboxTtlSeconds).toBe(3_600);
  });

  it.each([
    [{ OUTBOX_WEBHOOK_URL: 'ftp://x/y' }, 'OUTBOX_WEBHOOK_URL'],
    [{ OUTBOX_WEBHOOK_URL: 'not a url' }, 'OUTBOX_WEBHOOK_URL'],
    [{ OUTBOX_RETRY_BUDGET: 'soon' }, 'OUTBOX_RETRY_BUDGET'],
    [{ OUTBOX_WEBHOOK_TIMEOUT: '0' }, 'OUTBOX_WEBHOOK_TIMEOUT'],
  ])('refuses %o naming %s', (env, setting) => {
    expect(() => resolveOutboxConfig(env)).toThrow(expect.objectContaining({ code: 'ConfigInvalid', message: expect.stringContaining(setting) }));
  });

  it('refuses an unusable OUTBOX_TTL naming it', () => {
    expect(() => resolveCoreConfig({ OUTBOX_TTL: 'forever' })).toThrow(expect.objectContaining({ code: 'ConfigInvalid', message: expect.stringContaining('OUTBOX_TTL') }));
  });
});
