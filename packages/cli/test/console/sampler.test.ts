import { describe, expect, it } from 'vitest';
import { Sampler } from '../../src/console/sampler.js';

describe('the console sampler', () => {
  it('keeps 15 minutes of points, turns the applied total into entries per second, and keeps a failed read as a gap with its error', async () => {
    // Prepare: a clock moved by hand, a backlog that fails once, an applied total that grows.
    let now = 1_000_000;
    let backlog = 4;
    let failNext = false;
    let applied = 0;
    const sampler = new Sampler({
      readBacklog: async () => {
        if (failNext) throw new Error('Cannot reach Service Bus');
        return backlog;
      },
      readApplied: async () => applied,
      intervalMs: 5_000,
      windowMs: 15_000,
      now: () => now,
    });

    // Act
    await sampler.sample();
    now += 5_000;
    applied = 50;
    backlog = 2;
    await sampler.sample();
    now += 5_000;
    failNext = true;
    applied = 60;
    await sampler.sample();
    const failedError = sampler.lastError;
    failNext = false;
    for (let i = 0; i < 3; i += 1) {
      now += 5_000;
      await sampler.sample();
    }

    // Assess: the window holds 15 s / 5 s + 1 points, the oldest dropped first (the second point, 10/s, went too).
    expect(failedError).toBe('backlog: Cannot reach Service Bus');
    expect(sampler.lastError).toBeUndefined();
    expect(sampler.series().map((p) => [p.at - 1_000_000, p.backlog, p.appliedPerSecond])).toEqual([
      [10_000, undefined, 2],
      [15_000, 2, 0],
      [20_000, 2, 0],
      [25_000, 2, 0],
    ]);
  });

  it("charts no rate when the app's counter is out of reach", async () => {
    const sampler = new Sampler({ readBacklog: async () => 1, now: () => 0 });
    await sampler.sample();
    expect(sampler.hasApplied).toBe(false);
    expect(sampler.series()).toEqual([{ at: 0, backlog: 1, appliedPerSecond: undefined }]);
  });
});
