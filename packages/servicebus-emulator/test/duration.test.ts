import { describe, expect, it } from 'vitest';
import { MAX_DURATION, formatDurationMs, isUnbounded, parseDurationMs } from '../src/duration.js';

describe('Service Bus emulator durations (ISO 8601, as Config.json and the management API write them)', () => {
  it.each([
    ['PT1M', 60_000],
    ['P14D', 14 * 86_400_000],
    ['P1DT2H30M', 95_400_000],
    ['PT0.5S', 500],
    ['P2W', 14 * 86_400_000],
  ])('reads %s as %i ms', (text, ms) => {
    expect(parseDurationMs(text)).toBe(ms);
  });

  it.each(['P1Y', 'P1M', 'P', 'PT', 'P1DT', 'soon', '', '-PT1M'])('refuses %j', (text) => {
    expect(parseDurationMs(text)).toBeUndefined();
  });

  it('writes the shortest form, and Azure\'s "never" for anything that long', () => {
    expect([60_000, 14 * 86_400_000 + 12 * 3_600_000, 0, 1_500].map(formatDurationMs)).toEqual([
      'PT1M',
      'P14DT12H',
      'PT0S',
      'PT1.5S',
    ]);
    expect(formatDurationMs(Number.POSITIVE_INFINITY)).toBe(MAX_DURATION);
    expect(isUnbounded(parseDurationMs(MAX_DURATION)!)).toBe(true);
    expect(formatDurationMs(parseDurationMs(MAX_DURATION)!)).toBe(MAX_DURATION);
  });
});
