import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Timer, TimerHandler } from '@azure/functions';
import type { RegistrationOf } from '../src/registrations.js';
import { startTimerHost } from '../src/timer/timerHost.js';
import type { TimerHost } from '../src/timer/timerHost.js';
import { capturingLogger } from './support/logCapture.js';

const timer = (
  name: string,
  schedule: string,
  handler: TimerHandler,
  runOnStartup = false,
): RegistrationOf<'timer'> => ({
  kind: 'timer',
  name,
  options: { schedule, handler, runOnStartup },
});

let host: TimerHost | undefined;
beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(new Date('2026-11-30T10:00:05.000Z'));
});
afterEach(async () => {
  const closing = host?.close();
  host = undefined;
  await vi.runAllTimersAsync();
  await closing;
  vi.useRealTimers();
});

describe('the local timer host', () => {
  it('fires a */30 second schedule on the half minutes with the Timer shape the worker gives', async () => {
    // Prepare
    const { logger } = capturingLogger();
    const calls: { at: string; timer: Timer }[] = [];
    host = startTimerHost({
      logger,
      functions: [
        timer('sweep', '*/30 * * * * *', (t) => {
          calls.push({ at: new Date().toISOString(), timer: t });
        }),
      ],
    });
    // Act
    await vi.advanceTimersByTimeAsync(24_000);
    expect(calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(61_000);
    // Assess
    expect(calls.map((c) => c.at)).toEqual([
      '2026-11-30T10:00:30.000Z',
      '2026-11-30T10:01:00.000Z',
      '2026-11-30T10:01:30.000Z',
    ]);
    expect(calls[0]?.timer).toMatchObject({ isPastDue: false, schedule: { adjustForDST: true } });
    expect(calls[1]?.timer.scheduleStatus).toEqual({
      last: '2026-11-30T10:00:30.000Z',
      next: '2026-11-30T10:01:30.000Z',
      lastUpdated: '2026-11-30T10:01:00.000Z',
    });
  });

  it('runs on startup when asked, then on schedule', async () => {
    const { logger } = capturingLogger();
    const calls: string[] = [];
    host = startTimerHost({
      logger,
      functions: [
        timer(
          'boot',
          '0 * * * * *',
          () => {
            calls.push(new Date().toISOString());
          },
          true,
        ),
      ],
    });
    await vi.advanceTimersByTimeAsync(56_000);
    expect(calls).toEqual(['2026-11-30T10:00:05.000Z', '2026-11-30T10:01:00.000Z']);
  });

  it('never overlaps an invocation that outlasts its period, and keeps going after a throw', async () => {
    const { logger, lines } = capturingLogger();
    let active = 0;
    let maxActive = 0;
    let calls = 0;
    host = startTimerHost({
      logger,
      functions: [
        timer('slow', '* * * * * *', async () => {
          calls += 1;
          active += 1;
          maxActive = Math.max(maxActive, active);
          await new Promise((resolve) => setTimeout(resolve, 2500));
          active -= 1;
          if (calls === 1) throw new Error('first run fails');
        }),
      ],
    });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(maxActive).toBe(1);
    expect(calls).toBeGreaterThanOrEqual(3);
    expect(calls).toBeLessThanOrEqual(4);
    expect(lines.some((l) => l.function === 'slow' && String(l.msg).includes('first run fails'))).toBe(true);
  });

  it('stops scheduling on close and waits for the running invocation', async () => {
    const { logger } = capturingLogger();
    let finished = 0;
    let started = 0;
    host = startTimerHost({
      logger,
      functions: [
        timer('t', '* * * * * *', async () => {
          started += 1;
          await new Promise((resolve) => setTimeout(resolve, 500));
          finished += 1;
        }),
      ],
    });
    await vi.advanceTimersByTimeAsync(1_100);
    expect(started).toBe(1);
    const closing = host.close();
    host = undefined;
    await vi.advanceTimersByTimeAsync(5_000);
    await closing;
    expect(finished).toBe(1);
    expect(started).toBe(1);
  });
});
