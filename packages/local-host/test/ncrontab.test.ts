import { describe, expect, it } from 'vitest';
import { parseNcrontab } from '../src/timer/ncrontab.js';

const at = (iso: string): Date => new Date(iso);
const next = (expr: string, after: string): string => parseNcrontab(expr).next(at(after)).toISOString();

describe('parseNcrontab', () => {
  it('steps every 30 seconds from the top of the minute', () => {
    expect(next('*/30 * * * * *', '2026-11-30T10:00:00.000Z')).toBe('2026-11-30T10:00:30.000Z');
    expect(next('*/30 * * * * *', '2026-11-30T10:00:29.900Z')).toBe('2026-11-30T10:00:30.000Z');
    expect(next('*/30 * * * * *', '2026-11-30T10:00:30.000Z')).toBe('2026-11-30T10:01:00.000Z');
  });

  it('fires once a minute at second 0 for "0 * * * * *"', () => {
    expect(next('0 * * * * *', '2026-11-30T10:00:00.000Z')).toBe('2026-11-30T10:01:00.000Z');
  });

  it('honours lists and ranges with steps', () => {
    expect(next('0 0 9-17/4 * * *', '2026-11-30T09:00:00.000Z')).toBe('2026-11-30T13:00:00.000Z');
    expect(next('0 5,35 * * * *', '2026-11-30T10:06:00.000Z')).toBe('2026-11-30T10:35:00.000Z');
  });

  it('rolls over days, months and years', () => {
    expect(next('0 0 0 1 1 *', '2026-11-30T10:00:00.000Z')).toBe('2027-01-01T00:00:00.000Z');
    expect(next('0 30 23 31 * *', '2026-11-30T10:00:00.000Z')).toBe('2026-12-31T23:30:00.000Z');
  });

  it('requires both the day and the day of week to match, with 0 and 7 as Sunday', () => {
    // 2026-11-30 is a Monday; the next Friday the 13th is in 2027-08.
    expect(next('0 0 0 13 * 5', '2026-11-30T00:00:00.000Z')).toBe('2027-08-13T00:00:00.000Z');
    expect(next('0 0 12 * * 0', '2026-11-30T00:00:00.000Z')).toBe('2026-12-06T12:00:00.000Z');
    expect(next('0 0 12 * * 7', '2026-11-30T00:00:00.000Z')).toBe('2026-12-06T12:00:00.000Z');
  });

  it('finds 29 February in a leap year', () => {
    expect(next('0 0 0 29 2 *', '2026-11-30T00:00:00.000Z')).toBe('2028-02-29T00:00:00.000Z');
  });

  it.each([
    ['* * * * *', /6 fields/],
    ['60 * * * * *', /second field "60"/],
    ['* * 24 * * *', /hour field/],
    ['*/0 * * * * *', /zero step/],
    ['MON * * * * *', /second field "MON"/],
    ['5-1 * * * * *', /outside/],
  ])('rejects %s', (expr, message) => {
    expect(() => parseNcrontab(expr)).toThrow(message);
  });

  it('reports a schedule that can never fire', () => {
    expect(() => parseNcrontab('0 0 0 31 2 *').next(at('2026-01-01T00:00:00Z'))).toThrow(RangeError);
  });
});
