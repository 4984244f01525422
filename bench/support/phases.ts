/**
 * The bench's phases. Each starts the in-process host with its own functions and session concurrency, feeds it
 * one workload, and measures from the first send to the last message settled.
 */
import type { ServiceBusMessage, ServiceBusSender } from '@azure/service-bus';
import { FunctionApi } from '../../cli/httpApi.js';
import type { FunctionRegistration } from '../../src/functions/register.js';
import { QueueName, appContext } from '../../src/functions/appContext.js';
import type { BenchStack, CosmosCounts } from './benchStack.js';
import { sendEntryMessages, sendLedgers, type Workload } from './workload.js';

/** Settings every phase shares. */
export interface PhaseSettings {
  sessionIdleTimeoutMs: number;
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
  /** `sendMessages` calls of the splitter on `orders`, and the ledgers it split. */
  splitterSends: number;
  ledgers: number;
  /** Cosmos requests during the phase, by kind. */
  cosmos: CosmosCounts;
}

const RAW_FUNCTION = 'rawSessionComplete';

/**
 * Raw broker throughput: the host's session trigger on `orders` with a function that does nothing, so the host
 * just completes each message (auto-complete) — the broker and the session receive loop, without the app.
 */
export async function rawPhase(stack: BenchStack, sessions: number, work: Workload, settings: PhaseSettings): Promise<Throughput> {
  const noop: FunctionRegistration = {
    kind: 'serviceBusQueue',
    name: RAW_FUNCTION,
    options: { connection: 'ServiceBusConnection', queueName: QueueName.Orders, isSessionsEnabled: true, autoCompleteMessages: true, handler: () => undefined },
  };
  const phase = await stack.startHost({ registrations: [noop], maxConcurrentSessions: sessions, sessionIdleTimeoutMs: settings.sessionIdleTimeoutMs });
  try {
    const started = performance.now();
    await sendEntryMessages(stack.bus, work.entryMessages);
    await phase.processed.completed(RAW_FUNCTION, work.entryMessages.length, settings.timeoutMs);
    return throughput(work.entryMessages.length, started);
  } finally {
    await phase.close();
  }
}

/**
 * End to end: ledgers to the `ledger` queue, through the splitter and the order processor, until every order's
 * entries are applied. Counts the splitter's sends by wrapping the app's `orders` sender (bench only) and the
 * Cosmos requests with the emulator's counters; checks every order's `lastSequence` through the HTTP API after.
 */
export async function pipelinePhase(stack: BenchStack, sessions: number, work: Workload, settings: PhaseSettings): Promise<PipelineResult> {
  const phase = await stack.startHost({ registrations: stack.appFunctions, maxConcurrentSessions: sessions, sessionIdleTimeoutMs: settings.sessionIdleTimeoutMs });
  try {
    const sends = countSends(appContext().sender(QueueName.Orders));
    await stack.resetCosmosCounters();
    const started = performance.now();
    await sendLedgers(stack.bus, work.ledgers);
    await phase.processed.completed('orderProcessor', work.entryMessages.length, settings.timeoutMs);
    const result = throughput(work.entryMessages.length, started);
    const cosmos = await stack.cosmosCounters();
    await checkApplied(phase.host.httpUrl, work);
    return { ...result, splitterSends: sends.count(), ledgers: phase.processed.count('ledgerSplitter', 'completed'), cosmos };
  } finally {
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
export async function cosmosPhase(stack: BenchStack, sessions: number, work: Workload, settings: PhaseSettings): Promise<CosmosCosts> {
  const n = work.entryMessages.length;
  const host = { registrations: stack.appFunctions, maxConcurrentSessions: sessions, sessionIdleTimeoutMs: settings.sessionIdleTimeoutMs };
  const measure = async (phase: Awaited<ReturnType<BenchStack['startHost']>>, messages: ServiceBusMessage[], total: number): Promise<CosmosCounts> => {
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
    await checkApplied(first.host.httpUrl, work);
  } finally {
    await first.close();
  }
  const second = await stack.startHost(host);
  try {
    const duplicatesCold = await measure(second, copies('dup2'), n);
    await checkApplied(second.host.httpUrl, work);
    return { entries: n, fresh, duplicatesWarm, duplicatesCold };
  } finally {
    await second.close();
  }
}

/** Throws unless every order of the workload shows all its entries applied and nothing waiting. */
async function checkApplied(httpUrl: string, work: Workload): Promise<void> {
  const api = new FunctionApi({ httpBaseUrl: httpUrl.replace(/\/api$/, ''), functionKey: undefined });
  const perOrder = work.entryMessages.length / work.orderIds.length;
  for (const orderId of work.orderIds) {
    const view = await api.getOrder(orderId);
    if (view?.lastSequence !== perOrder || view.parked.length > 0 || view.rejected.length > 0) {
      throw new Error(`order ${orderId} is not fully applied: ${JSON.stringify(view)}`);
    }
  }
}

/** Counts `sendMessages` calls on one sender instance (the splitter sends one batch per call). */
function countSends(sender: ServiceBusSender): { count(): number } {
  let calls = 0;
  const original = sender.sendMessages.bind(sender);
  sender.sendMessages = (...args: Parameters<ServiceBusSender['sendMessages']>) => {
    calls++;
    return original(...args);
  };
  return { count: () => calls };
}

function throughput(messages: number, startedAt: number): Throughput {
  const seconds = (performance.now() - startedAt) / 1000;
  return { messages, seconds, perSecond: messages / seconds };
}
