import type { ServerResponse } from 'node:http';

/** Jitter added on top of the latency: up to this fraction of it, never taken off (the latency is a lower bound). */
const JITTER_FRACTION = 0.1;

/** Options of {@link holdReply}. */
export interface ReplyLatencyOptions {
  /** Least time from a request's arrival to its reply, in ms (`--latency`). */
  readonly latencyMs: number;
  /** Random numbers in [0, 1) for the jitter. @default Math.random */
  readonly random?: () => number;
}

/**
 * Azure's round trip, simulated (`--latency`): the response to a request that arrived at `arrivedAt`
 * (`performance.now()` time) leaves no earlier than the latency plus up to {@link JITTER_FRACTION} of it after that.
 * The handler runs at once and only the response's end waits, on a timer of its own: one request's wait holds up no
 * other request or connection (a keep-alive connection carries one request at a time, so order is kept).
 */
export function holdReply(res: ServerResponse, arrivedAt: number, options: ReplyLatencyOptions): void {
  const ms = options.latencyMs;
  if (ms <= 0) return;
  const due = arrivedAt + ms + (options.random ?? Math.random)() * JITTER_FRACTION * ms;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  const held = (...args: unknown[]): ServerResponse => {
    const send = (): void => {
      const wait = due - performance.now();
      // A timer may fire a little early by this clock: wait out the rest.
      if (wait > 0) setTimeout(send, Math.ceil(wait));
      else if (!res.destroyed) end(...args);
    };
    send();
    return res;
  };
  res.end = held as ServerResponse['end'];
}
