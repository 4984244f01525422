import { errorText } from '../errors.js';

/** One point of the overview's charts. */
export interface SamplePoint {
  /** Epoch ms. */
  at: number;
  /** Active messages of `orders`; undefined when the read failed. */
  backlog: number | undefined;
  /** Entries applied per second since the previous point; undefined without the app's counter. */
  appliedPerSecond: number | undefined;
}

/** Options of {@link Sampler}. */
export interface SamplerOptions {
  /** Reads the backlog (active messages of `orders`). */
  readBacklog: () => Promise<number>;
  /** Reads the total of entries applied; absent when the console has no access to the app's counter. */
  readApplied?: () => Promise<number>;
  /** @default 5000 */
  intervalMs?: number;
  /** How far back the charts go. @default 900000 (15 minutes) */
  windowMs?: number;
  /** @default Date.now */
  now?: () => number;
}

/**
 * Samples the backlog and the applied count on the server every few seconds into a ring buffer covering the last
 * 15 minutes, so a page opened late still shows the recent past. A failed read is kept as a gap and its error as
 * `lastError`, shown beside the chart.
 */
export class Sampler {
  private readonly points: SamplePoint[] = [];
  private readonly capacity: number;
  private timer: NodeJS.Timeout | undefined;
  private previousApplied: { at: number; total: number } | undefined;
  private running: Promise<void> | undefined;
  /** The last read's error message, cleared by the next good read. */
  lastError: string | undefined;

  constructor(private readonly options: SamplerOptions) {
    this.capacity = Math.ceil((options.windowMs ?? 900_000) / (options.intervalMs ?? 5_000)) + 1;
  }

  /** Whether entries/s can be charted here. */
  get hasApplied(): boolean {
    return this.options.readApplied !== undefined;
  }

  start(): void {
    if (this.timer) return;
    void this.sample();
    this.timer = setInterval(() => void this.sample(), this.options.intervalMs ?? 5_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** The points of the window, oldest first. */
  series(): readonly SamplePoint[] {
    return this.points;
  }

  /** Takes one sample now (also what the timer calls); overlapping calls share one read. */
  sample(): Promise<void> {
    return (this.running ??= this.read().finally(() => (this.running = undefined)));
  }

  private async read(): Promise<void> {
    const now = this.options.now ?? Date.now;
    const errors: string[] = [];
    const [backlog, applied] = await Promise.all([
      this.options.readBacklog().catch((error: unknown) => void errors.push(`backlog: ${errorText(error)}`)),
      this.options.readApplied?.().catch((error: unknown) => void errors.push(`entries applied: ${errorText(error)}`)),
    ]);
    const at = now();
    let appliedPerSecond: number | undefined;
    if (typeof applied === 'number') {
      const previous = this.previousApplied;
      if (previous && at > previous.at)
        appliedPerSecond = Math.max(0, ((applied - previous.total) * 1000) / (at - previous.at));
      this.previousApplied = { at, total: applied };
    }
    this.points.push({ at, backlog: typeof backlog === 'number' ? backlog : undefined, appliedPerSecond });
    if (this.points.length > this.capacity) this.points.splice(0, this.points.length - this.capacity);
    this.lastError = errors.length > 0 ? errors.join('; ') : undefined;
  }
}
