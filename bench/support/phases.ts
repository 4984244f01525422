/**
 * The bench's host phases. Each starts the in-process host with the run's host settings, feeds it one workload,
 * measures from the first send to the last entry applied, and checks every order over HTTP.
 */
import type { ServiceBusMessage } from '@azure/service-bus';
import { FunctionApi } from '@ledger-convoy/cli';
import type { ServiceBusHostOptions } from '@ledger-convoy/local-host';
import { consumeOrderEvents, eventKeyOf } from './orderEvents.js';
import { cpuSince, readCpu, type CpuSpent } from './cpuTime.js';
import type { BenchHost, BenchStack, CosmosCounts } from './benchStack.js';
import { sendEntryMessages, sendLedgers, type Workload } from './workload.js';

/** Settings every phase shares. */
export interface PhaseSettings {
  /** Applied over host.json (empty = host.json as committed). */
  overrides: Partial<ServiceBusHostOptions>;
  /** Give up on a phase after this long. */
  timeoutMs: number;
}

/** Throughput of one phase. */
export interface Throughput {
  messages: number;
  seconds: number;
  perSecond: number;
}

/** What an end-to-end phase measured besides throughput. */
export interface PipelineResult extends Throughput {
  /** "session accepted" lines of the order processor's trigger. */
  sessionAccepts: number;
  /** Cosmos requests from the first send until every event was on order-events (processor and relay), by kind. */
  cosmos: CosmosCounts;
  /** From the first send until the last entry's event was on order-events. */
  relayedSeconds: number;
  /** order-events copies beyond the first of a messageId. */
  duplicateEvents: number;
  /**
   * Event-loop busy time of the main thread (the functions, the in-process host and the bench's own sends; the
   * emulators run in threads of their own) during the timed part: its utilisation × the phase's wall time, in ms.
   * Not CPU: {@link cpu} is.
   */
  busyMs: number;
  /** CPU of the main thread and of the whole process (the emulators' threads too) during the timed part. */
  cpu: CpuSpent;
}

/**
 * End to end: ledgers to the `ledger` queue, through the splitter and the order processor, until every order's
 * entries are applied (host log); counts the Cosmos requests with the emulator's counters and the processor's
 * session accepts; checks every order's `lastSequence` through the HTTP API after.
 */
export async function pipelinePhase(
  stack: BenchStack,
  work: Workload,
  settings: PhaseSettings,
): Promise<PipelineResult> {
  const phase = await stack.startHost({ registrations: stack.appFunctions, overrides: settings.overrides });
  let events: ReturnType<typeof consumeOrderEvents> | undefined;
  try {
    await stack.resetCosmosCounters();
    const started = performance.now();
    const startedAt = Date.now();
    const loop = performance.eventLoopUtilization();
    const cpuBefore = readCpu();
    await sendLedgers(stack.bus, work.ledgers);
    await phase.processed.completed('orderProcessor', work.entryMessages.length, settings.timeoutMs);
    const cpu = cpuSince(cpuBefore);
    const busyMs = performance.eventLoopUtilization(loop).active;
    const result = throughput(work.entryMessages.length, started);
    // The relay's requests count too: the phase ends when every entry's event is on order-events. The events'
    // consumer (a downstream app, not ours) starts only now, so it takes no CPU from the timed part; the relay's
    // end is read from the broker's enqueue times.
    events = consumeOrderEvents(stack.emulators.serviceBusConnectionString);
    const ids = work.entryMessages.map((m) => eventKeyOf(m.body as { orderId: string; entryId: string }));
    await events.waitFor(ids, settings.timeoutMs);
    const lastEnqueuedAt = Math.max(...ids.map((id) => events?.seen.enqueuedAt.get(id) ?? startedAt));
    const relayedSeconds = (lastEnqueuedAt - startedAt) / 1000;
    const cosmos = await stack.cosmosCounters();
    await checkApplied(phase.host.httpUrl, work.orderIds, work.entryMessages.length / work.orderIds.length);
    return {
      ...result,
      sessionAccepts: phase.processed.sessionAccepts('orderProcessor'),
      cosmos,
      relayedSeconds,
      duplicateEvents: events.seen.duplicates,
      busyMs,
      cpu,
    };
  } finally {
    await events?.close();
    await phase.close();
  }
}

/** Cosmos round trips of the order processor: fresh entries, then the same entries again as duplicates. */
export interface CosmosCosts {
  entries: number;
  fresh: CosmosCounts;
  /** Re-sent while the host still has the orders in its cache. */
  duplicatesWarm: CosmosCounts;
  /** Re-sent to a restarted host (empty cache). */
  duplicatesCold: CosmosCounts;
}

/**
 * Sends a workload's entry messages straight to `orders` (in order, so nothing parks) and counts Cosmos requests;
 * then re-sends each entry twice with new message ids (so broker duplicate detection lets them through), once to
 * the same host and once to a restarted one, counting again.
 */
export async function cosmosPhase(stack: BenchStack, work: Workload, settings: PhaseSettings): Promise<CosmosCosts> {
  const n = work.entryMessages.length;
  const perOrder = n / work.orderIds.length;
  // The processor alone: the relay's polls and checkpoints would fall into the count as the machine's speed has it
  // (workload (b) counts every kind, the relay's included).
  const host = {
    registrations: stack.appFunctions.filter((r) => r.kind !== 'cosmosDB'),
    overrides: settings.overrides,
  };
  const measure = async (phase: BenchHost, messages: ServiceBusMessage[], total: number): Promise<CosmosCounts> => {
    await stack.resetCosmosCounters();
    await sendEntryMessages(stack.bus, messages);
    await phase.processed.completed('orderProcessor', total, settings.timeoutMs);
    return stack.cosmosCounters();
  };
  const copies = (tag: string) => work.entryMessages.map((m) => ({ ...m, messageId: `${String(m.messageId)}.${tag}` }));

  const first = await stack.startHost(host);
  let fresh: CosmosCounts;
  let duplicatesWarm: CosmosCounts;
  try {
    fresh = await measure(first, work.entryMessages, n);
    duplicatesWarm = await measure(first, copies('dup1'), 2 * n);
    await checkApplied(first.host.httpUrl, work.orderIds, perOrder);
  } finally {
    await first.close();
  }
  const second = await stack.startHost(host);
  try {
    const duplicatesCold = await measure(second, copies('dup2'), n);
    await checkApplied(second.host.httpUrl, work.orderIds, perOrder);
    return { entries: n, fresh, duplicatesWarm, duplicatesCold };
  } finally {
    await second.close();
  }
}

/** Throws unless every order shows `perOrder` entries applied and nothing parked or rejected. */
export async function checkApplied(httpUrl: string, orderIds: readonly string[], perOrder: number): Promise<void> {
  const api = new FunctionApi({ httpBaseUrl: httpUrl.replace(/\/api$/, ''), functionKey: undefined });
  for (const orderId of orderIds) {
    const view = await api.getOrder(orderId);
    if (view?.lastSequence !== perOrder || view.parked.length > 0 || view.rejected.length > 0) {
      throw new Error(`order ${orderId} is not fully applied: ${JSON.stringify(view)}`);
    }
  }
}

/** Messages per second since `startedAt` (a `performance.now()` reading). */
function throughput(messages: number, startedAt: number): Throughput {
  const seconds = (performance.now() - startedAt) / 1000;
  return { messages, seconds, perSecond: messages / seconds };
}
