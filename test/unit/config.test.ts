import { describe, expect, it } from 'vitest';
import { IN_FLIGHT_REQUEST_ALLOWANCE_MS, resolveCoreConfig } from '../../src/core/config.js';
import { parseIsoDuration } from '../../src/core/duration.js';

describe('ISO 8601 durations', () => {
  it.each([
    ['PT1M', 60_000],
    ['P14D', 14 * 86_400_000],
    ['PT15M', 900_000],
    ['P1DT2H30M', 95_400_000],
    ['PT0.5S', 500],
    ['P2W', 14 * 86_400_000],
    ['pt30s', 30_000],
  ])('parses %s', (text, ms) => {
    // Act + Assess
    expect(parseIsoDuration(text)).toBe(ms);
  });

  it.each(['', 'P', 'PT', '1M', 'P1Y', 'P1M', 'PT1H2', 'P1DT', 'abc'])('refuses "%s"', (text) => {
    // Act + Assess
    expect(parseIsoDuration(text)).toBeUndefined();
  });
});

describe('core configuration', () => {
  it('has documented defaults, frozen', () => {
    // Act
    const config = resolveCoreConfig({});
    // Assess
    expect(config).toEqual({
      consumerName: 'order-processor',
      transientRetryBudgetMs: 30_000,
      retryBaseDelayMs: 100,
      retryMaxDelayMs: 5_000,
      gapAlertAgeMs: 900_000,
      gapAlertRepeatMs: 3_600_000,
      ordersQueue: { lockDurationMs: 60_000, maxDeliveryCount: 10, messageTtlMs: 14 * 86_400_000 },
      outboxTtlSeconds: 7 * 86_400,
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.ordersQueue)).toBe(true);
  });

  it('reads settings from the environment, durations as ISO or milliseconds', () => {
    // Act
    const config = resolveCoreConfig({
      TRANSIENT_RETRY_BUDGET: 'PT20S',
      TRANSIENT_RETRY_BASE_DELAY: '50',
      GAP_ALERT_AGE: 'PT5M',
      GAP_ALERT_REPEAT: 'PT2H',
      ORDERS_LOCK_DURATION: 'PT2M',
      ORDERS_MAX_DELIVERY_COUNT: '5',
      ORDERS_MESSAGE_TTL: 'P1D',
      INBOX_CONSUMER_NAME: 'audit',
      OUTBOX_TTL: 'P1D',
    });
    // Assess
    expect(config).toMatchObject({
      transientRetryBudgetMs: 20_000,
      retryBaseDelayMs: 50,
      gapAlertAgeMs: 300_000,
      gapAlertRepeatMs: 7_200_000,
      consumerName: 'audit',
      outboxTtlSeconds: 86_400,
    });
  });

  it.each([
    ['TRANSIENT_RETRY_BUDGET', 'soon'],
    ['GAP_ALERT_AGE', '15'],
    ['GAP_ALERT_REPEAT', 'hourly'],
    ['GAP_ALERT_REPEAT', 'PT0S'],
    ['ORDERS_MAX_DELIVERY_COUNT', '0'],
    ['ORDERS_MAX_DELIVERY_COUNT', '2.5'],
    ['INBOX_CONSUMER_NAME', 'has space'],
  ])('refuses %s=%s with ConfigInvalid naming the setting', (name, value) => {
    // Act
    const act = () => resolveCoreConfig({ [name]: value });
    // Assess
    expect(act).toThrow(expect.objectContaining({ code: 'ConfigInvalid', setting: name }));
  });

  it('refuses a retry budget that does not end before the message lock', () => {
    // Act
    const act = () => resolveCoreConfig({ TRANSIENT_RETRY_BUDGET: '60000', ORDERS_LOCK_DURATION: 'PT1M' });
    // Assess
    expect(act).toThrow(expect.objectContaining({ code: 'ConfigInvalid', setting: 'TRANSIENT_RETRY_BUDGET' }));
  });

  it('refuses a retry budget that leaves no room for one request in flight before the lock ends', () => {
    // Act
    const tooLong = () => resolveCoreConfig({ TRANSIENT_RETRY_BUDGET: 'PT50S', ORDERS_LOCK_DURATION: 'PT1M' });
    const fits = resolveCoreConfig({ TRANSIENT_RETRY_BUDGET: 'PT49S', ORDERS_LOCK_DURATION: 'PT1M' });
    // Assess
    expect(tooLong).toThrow(expect.objectContaining({ code: 'ConfigInvalid', setting: 'TRANSIENT_RETRY_BUDGET' }));
    expect(fits.transientRetryBudgetMs + IN_FLIGHT_REQUEST_ALLOWANCE_MS).toBeLessThan(fits.ordersQueue.lockDurationMs);
  });
});
