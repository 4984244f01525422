/**
 * The latency phase: a steady offered load through the host's `POST /api/ledgers`, and the time from each POST
 * to its entries being applied, as the host logged it.
 */
import { consumeOrderEvents, eventKeyOf } from './orderEvents.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { FunctionApi } from '@ledger-convoy/cli';
import type { BenchStack } from './benchStack.js';
import { checkApplied, type PhaseSettings } from './phases.js';
import type { ProcessedCounter } from './processedCounter.js';
import { steadyWorkload, type SteadyWorkload } from './workload.js';

/** The offered load: ledgers of 10 entries over 50 orders, 5 ledgers a second (50 entries/s). */
export const LATENCY_LOAD = { orders: 50, entriesPerLedger: 10, ledgersPerSecond: 5 } as const;

// POSTs still waiting for their 202 at once; beyond this the sender waits, falls behind and says so.
const MAX_POSTS_IN_FLIGHT = 64;

/** Options of {@link latencyPhase}. */
export interface LatencyOptions extends PhaseSettings {
  warmupSeconds: number;
  measureSeconds: number;
}

/** The steady workload of a latency phase of `seconds` (warm-up included) at {@link LATENCY_LOAD}. */
export function latencyWorkload(seconds: number, seed: number): SteadyWorkload {
  const { orders, entriesPerLedger, ledgersPerSecond } = LATENCY_LOAD;
  return steadyWorkload('blat', { orders, entriesPerLedger, ledgerCount: seconds * ledgersPerSecond }, seed);
}

/** What the latency phase measured over its measured window (warm-up excluded). */
export interface LatencyResult {
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  offeredPerSecond: number;
  /** Entries POSTed per second in the window, as achieved. */
  sentPerSecond: number;
  /** Entries applied per second during the window (any entry's, warm-up ones included). */
  appliedPerSecond: number;
  /** The latest a POST started after its scheduled time. */
  maxSendLagMs: number;
  /** From the last POST until the last entry applied. */
  drainSeconds: number;
  /** Entries the processor completed before their predecessor was applied (parked, then applied by its drain). */
  outOfOrder: number;
  entries: number;
  sessionAccepts: number;
  /** Outbox relay: the entry's commit (`committedAt`) → its event enqueued on order-events, same entries. */
  event: { p50Ms: number; p99Ms: number; maxMs: number; samples: number };
}

/**
 * Sends the steady workload on a fixed schedule (each POST's time computed from the start, so it never drifts),
 * waits until every entry is applied, checks every order, and reports latency percentiles of the entries POSTed
 * after the warm-up.
 */
export async function latencyPhase(
  stack: BenchStack,
  work: SteadyWorkload,
  options: LatencyOptions,
): Promise<LatencyResult> {
  const { entriesPerLedger, ledgersPerSecond } = LATENCY_LOAD;
  const warmupLedgers = options.warmupSeconds * ledgersPerSecond;
  const ledgerCount = work.ledgers.length;
  if (ledgerCount !== warmupLedgers + options.measureSeconds * ledgersPerSecond)
    throw new Error('latency workload does not match the phase length');
  const phase = await stack.startHost({ registrations: stack.appFunctions, overrides: options.overrides });
  let events: ReturnType<typeof consumeOrderEvents> | undefined;
  try {
    const api = new FunctionApi({ httpBaseUrl: phase.host.httpUrl.replace(/\/api$/, ''), functionKey: undefined });
    const intervalMs = 1000 / ledgersPerSecond;
    const postedAt: number[] = []; // Date.now() when each ledger's POST started, the clock pino's `time` uses
    const startedPerf: number[] = [];
    const inFlight = new Set<Promise<void>>();
    const failures: unknown[] = [];
    let maxSendLagMs = 0;
    const t0 = performance.now();
    for (const [i, ledger] of work.ledgers.entries()) {
      const due = t0 + i * intervalMs;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      while (inFlight.size >= MAX_POSTS_IN_FLIGHT) await Promise.race(inFlight);
      if (failures.length > 0) throw failures[0];
      startedPerf[i] = performance.now();
      postedAt[i] = Date.now();
      maxSendLagMs = Math.max(maxSendLagMs, (startedPerf[i] as number) - due);
      const post: Promise<void> = api
        .postLedger(ledger)
        .catch((error: unknown) => void failures.push(error))
        .finally(() => inFlight.delete(post));
      inFlight.add(post);
    }
    await Promise.all(inFlight);
    if (failures.length > 0) throw failures[0];
    const lastPost = postedAt[postedAt.length - 1] as number;

    const total = ledgerCount * entriesPerLedger;
    await phase.processed.completed('orderProcessor', total, options.timeoutMs);
    await checkApplied(phase.host.httpUrl, work.orderIds, work.perOrder);
    const measured = work.ledgers.slice(warmupLedgers).flatMap((l) => l.entries.map(eventKeyOf));
    // The events' consumer (a downstream app's work) starts once the timed part is over; the event latency comes
    // from the broker's enqueue times, not from when the consumer took them.
    events = consumeOrderEvents(stack.emulators.serviceBusConnectionString);
    await events.waitFor(measured, options.timeoutMs);
    const committedAt = await stack.outboxCommitTimes();
    const { enqueuedAt } = events.seen;
    const eventLatencies = measured
      .map((id) => (enqueuedAt.get(id) as number) - (committedAt.get(id) ?? Number.NaN))
      .sort((a, b) => a - b);
    if (eventLatencies.some(Number.isNaN)) throw new Error('a stored event of the latency phase has no committedAt');

    const applied = appliedTimes(
      phase.processed,
      work.ledgers.map((l) => l.entries),
    );
    const latencies: number[] = [];
    for (const [i, ledger] of work.ledgers.entries()) {
      if (i < warmupLedgers) continue;
      for (const entry of ledger.entries)
        latencies.push((applied.at.get(entry.entryId) as number) - (postedAt[i] as number));
    }
    latencies.sort((a, b) => a - b);
    const windowStart = postedAt[warmupLedgers] as number;
    const windowEnd = windowStart + options.measureSeconds * 1000;
    const appliedInWindow = [...applied.at.values()].filter((t) => t >= windowStart && t < windowEnd).length;
    const sendSeconds =
      ((startedPerf[ledgerCount - 1] as number) - (startedPerf[warmupLedgers] as number) + intervalMs) / 1000;
    return {
      samples: latencies.length,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      maxMs: latencies[latencies.length - 1] ?? Number.NaN,
      offeredPerSecond: ledgersPerSecond * entriesPerLedger,
      sentPerSecond: latencies.length / sendSeconds,
      appliedPerSecond: appliedInWindow / options.measureSeconds,
      maxSendLagMs,
      drainSeconds: (Math.max(...applied.at.values()) - lastPost) / 1000,
      outOfOrder: applied.outOfOrder,
      entries: total,
      sessionAccepts: phase.processed.sessionAccepts('orderProcessor'),
      event: {
        p50Ms: percentile(eventLatencies, 0.5),
        p99Ms: percentile(eventLatencies, 0.99),
        maxMs: eventLatencies[eventLatencies.length - 1] ?? Number.NaN,
        samples: eventLatencies.length,
      },
    };
  } finally {
    await events?.close();
    await phase.close();
  }
}

/**
 * When each entry was applied: its own completed line, or, when it was completed before its predecessor was
 * applied (so the processor parked it), when the predecessor was applied — the drain applies it then.
 */
function appliedTimes(
  processed: ProcessedCounter,
  ledgers: readonly { entryId: string; orderId: string; sequence: number }[][],
): { at: Map<string, number>; outOfOrder: number } {
  const byOrder = new Map<string, { entryId: string; sequence: number }[]>();
  for (const entry of ledgers.flat()) {
    const list = byOrder.get(entry.orderId) ?? [];
    list.push(entry);
    byOrder.set(entry.orderId, list);
  }
  const at = new Map<string, number>();
  let outOfOrder = 0;
  for (const entries of byOrder.values()) {
    let previous = Number.NEGATIVE_INFINITY;
    for (const entry of entries.sort((a, b) => a.sequence - b.sequence)) {
      const completed = processed.completedAt(entry.entryId);
      if (completed === undefined) throw new Error(`entry ${entry.entryId} has no completed "message processed" line`);
      if (completed < previous) outOfOrder += 1;
      previous = Math.max(completed, previous);
      at.set(entry.entryId, previous);
    }
  }
  return { at, outOfOrder };
}

/** Nearest-rank percentile of ascending values. */
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
}
