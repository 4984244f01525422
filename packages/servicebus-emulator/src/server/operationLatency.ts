/** Options of {@link OperationLatency}. */
export interface OperationLatencyOptions {
  /** Least time from an operation's arrival to its reply, in ms (`--latency`); 0 answers at once. @default 0 */
  readonly latencyMs: number;
  /** Random numbers in [0, 1) for the jitter (tests pass a fixed one). @default Math.random */
  readonly random?: () => number;
}

/**
 * Jitter added on top of the latency: up to this fraction of it, never taken off (the latency is a lower bound).
 * @internal exported for its test
 */
export const JITTER_FRACTION = 0.1;

interface Lane {
  readonly queue: { due: number; run: () => void }[];
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Azure's round trip, simulated (`--latency`): an operation (an attach, a transfer, a disposition, a flow, a drain)
 * is acted on, and so answered, no earlier than `latencyMs` plus up to {@link JITTER_FRACTION} of it after it
 * arrived. Operations wait in lanes, one per link: a lane keeps its operations in arrival order (a jittered later
 * send never overtakes an earlier one) and never waits on another lane, so one link's latency holds up no other
 * link or connection.
 */
export class OperationLatency {
  private readonly lanes = new WeakMap<object, Lane>();
  private readonly random: () => number;

  constructor(private readonly options: OperationLatencyOptions) {
    if (!(Number.isFinite(options.latencyMs) && options.latencyMs >= 0))
      throw new RangeError(`latencyMs must be a number of milliseconds ≥ 0, got ${options.latencyMs}.`);
    this.random = options.random ?? Math.random;
  }

  /** Whether operations wait at all. */
  get enabled(): boolean {
    return this.options.latencyMs > 0;
  }

  /** When an operation arriving now may be answered (`performance.now()` time). */
  dueFromNow(): number {
    const ms = this.options.latencyMs;
    return performance.now() + ms + this.random() * JITTER_FRACTION * ms;
  }

  /** Runs `run` once the operation arriving now is due, after the lane's earlier operations; at once without latency. */
  defer(lane: object, run: () => void): void {
    if (!this.enabled) {
      run();
      return;
    }
    let l = this.lanes.get(lane);
    if (!l) this.lanes.set(lane, (l = { queue: [], timer: undefined }));
    const last = l.queue[l.queue.length - 1];
    l.queue.push({ due: Math.max(this.dueFromNow(), last?.due ?? 0), run });
    if (l.timer === undefined) this.schedule(l);
  }

  private schedule(l: Lane): void {
    const head = l.queue[0];
    if (!head) {
      l.timer = undefined;
      return;
    }
    l.timer = setTimeout(
      () => {
        while (l.queue[0] !== undefined && l.queue[0].due <= performance.now())
          (l.queue.shift() as Lane['queue'][0]).run();
        this.schedule(l);
      },
      Math.max(0, Math.ceil(head.due - performance.now())),
    );
  }
}
