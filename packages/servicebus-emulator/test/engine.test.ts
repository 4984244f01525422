import { describe, expect, it, vi } from 'vitest';
import { DedupWindow } from '../src/broker/dedupWindow.js';
import { parseAddress } from '../src/broker/entityAddress.js';
import { tokenToDeliveryTag, tokenToUuidBytes, uuidBytesToToken } from '../src/broker/lockToken.js';
import { TimerQueue } from '../src/broker/timerQueue.js';
import { parseDurationMs } from '../src/duration.js';

describe('engine building blocks', () => {
  it('puts the lock token in the delivery tag in .NET Guid byte order', () => {
    const token = '00112233-4455-6677-8899-aabbccddeeff';
    expect(tokenToDeliveryTag(token).toString('hex')).toBe('33221100554477668899aabbccddeeff');
    expect(uuidBytesToToken(tokenToUuidBytes(token))).toBe(token);
  });

  it('parses Config.json durations of any length', () => {
    expect(parseDurationMs('PT1M')).toBe(60_000);
    expect(parseDurationMs('P14D')).toBe(14 * 86_400_000);
    expect(parseDurationMs('PT0.5S')).toBe(500);
    expect(parseDurationMs('P1DT2H3M4S')).toBe(((24 + 2) * 3600 + 3 * 60 + 4) * 1000);
    expect(parseDurationMs('1 minute')).toBeUndefined();
    expect(parseDurationMs('P')).toBeUndefined();
  });

  it('remembers message ids for exactly the window', () => {
    const w = new DedupWindow(1000);
    w.add('a', 0);
    expect(w.seen('a', 999)).toBe(true);
    expect(w.seen('a', 1000)).toBe(false);
  });

  it('normalises link addresses', () => {
    expect(parseAddress('/Orders')).toMatchObject({ key: 'orders', deadLetter: false, management: false });
    expect(parseAddress('sb://host:5672/orders/$DeadLetterQueue')).toMatchObject({ key: 'orders', deadLetter: true });
    expect(parseAddress('t/Subscriptions/s/$management')).toMatchObject({ key: 't/subscriptions/s', management: true });
  });

  it('fires timers in due order, none before its time', () => {
    vi.useFakeTimers();
    try {
      const q = new TimerQueue();
      const fired: number[] = [];
      const now = Date.now();
      for (const d of [30, 10, 20, 0]) q.at(now + d, () => fired.push(d));
      vi.advanceTimersByTime(15);
      expect(fired).toEqual([0, 10]);
      vi.advanceTimersByTime(15);
      expect(fired).toEqual([0, 10, 20, 30]);
      q.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
