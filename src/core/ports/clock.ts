/** Wall-clock time; injected so tests control it. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** Waits `ms` milliseconds; injected so tests need not wait. */
export type Sleep = (ms: number) => Promise<void>;

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** The real sleep (a timer, so fake timers control it). */
export const timerSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
