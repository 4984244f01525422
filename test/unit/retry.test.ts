import { describe, expect, it } from 'vitest';
import { StoreError } from '../../src/core/index.js';
import { backoffDelay, retry } from '../../src/core/retry.js';
import { isRetryableStoreError } from '../../src/core/errors.js';
import { ManualClock } from '../support/fakes/index.js';

const transient = (retryAfterMs?: number) => new StoreError('StoreTransient', 'busy', { status: 429, retryAfterMs });

describe('retry with backoff', () => {
  it('grows delays exponentially up to the cap, with jitter in the upper half', () => {
    // Prepare
    const options = { baseDelayMs: 100, maxDelayMs: 1_000 };
    // Act
    const low = [0, 1, 2, 3, 4, 10].map((n) => backoffDelay(n, { ...options, random: () => 0 }));
    const high = [0, 1, 2, 3, 4, 10].map((n) => backoffDelay(n, { ...options, random: () => 0.999999 }));
    // Assess
    expect(low).toEqual([50, 100, 200, 400, 500, 500]);
    expect(high).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('honours a longer server retry-after hint', async () => {
    // Prepare
    const clock = new ManualClock();
    let calls = 0;
    // Act
    const result = await retry(
      async () => {
        if (calls++ === 0) throw transient(700);
        return 'ok';
      },
      {
        deadline: clock.now() + 30_000,
        retryable: isRetryableStoreError,
        baseDelayMs: 100,
        maxDelayMs: 5_000,
        clock,
        sleep: clock.sleep,
        random: () => 0,
      },
    );
    // Assess
    expect(result).toBe('ok');
    expect(clock.sleeps).toEqual([700]);
  });

  it('gives up by an absolute deadline that an earlier step already used up in part', async () => {
    // Prepare: 4 s of a 5 s message budget are gone before this step starts
    const clock = new ManualClock();
    const deadline = clock.now() + 5_000;
    clock.advance(4_000);
    // Act
    const act = retry(
      async () => {
        throw transient();
      },
      {
        deadline,
        retryable: isRetryableStoreError,
        baseDelayMs: 100,
        maxDelayMs: 5_000,
        clock,
        sleep: clock.sleep,
        random: () => 0.5,
      },
    );
    // Assess
    await expect(act).rejects.toMatchObject({ code: 'StoreTransient' });
    expect(clock.now()).toBeLessThanOrEqual(deadline);
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1_000);
  });

  it('gives up with the last error when the next wait would pass the deadline', async () => {
    // Prepare
    const clock = new ManualClock();
    // Act
    const act = retry(
      async () => {
        throw transient();
      },
      {
        deadline: clock.now() + 1_000,
        retryable: isRetryableStoreError,
        baseDelayMs: 100,
        maxDelayMs: 5_000,
        clock,
        sleep: clock.sleep,
        random: () => 0,
      },
    );
    // Assess
    await expect(act).rejects.toMatchObject({ code: 'StoreTransient' });
    expect(clock.sleeps).toEqual([50, 100, 200, 400]);
  });

  it('does not retry other errors', async () => {
    // Prepare
    const clock = new ManualClock();
    // Act
    const act = retry(
      async () => {
        throw new Error('bug');
      },
      {
        deadline: clock.now() + 1_000,
        retryable: isRetryableStoreError,
        baseDelayMs: 100,
        maxDelayMs: 5_000,
        clock,
        sleep: clock.sleep,
      },
    );
    // Assess
    await expect(act).rejects.toThrow('bug');
    expect(clock.sleeps).toEqual([]);
  });
});
