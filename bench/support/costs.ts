/**
 * The cost phase: what an entry uses of each billed meter, end to end (ledger queue → splitter → processor → outbox
 * relay → order-events), for short orders and for one long order whose first and last hundred entries are measured
 * apart. Measured: Cosmos DB request units and bytes written (the emulator's counters), event bodies (taken from
 * order-events), function executions (the host's invocations) and the main thread's busy time; Service Bus
 * operations are derived from the message sizes (see `costReport.ts`).
 */
import type { ServiceBusMessage } from '@azure/service-bus';
import type { Ledger } from '../../src/core/index.js';
import type { BenchStack, ByKind, CosmosCounts } from './benchStack.js';
import { consumeOrderEvents, eventKeyOf, type OrderEventsConsumer } from './orderEvents.js';
import { checkApplied, type PhaseSettings } from './phases.js';
import { sendLedgers, type LongOrderWorkload, type Workload } from './workload.js';

/** What one window of entries used. */
export interface CostWindow {
  entries: number;
  cosmos: CosmosCounts;
  /** Body bytes of each entry's event on order-events. */
  eventBytes: number[];
  /** Body bytes of each `orders` message (one per entry). */
  entryMessageBytes: number[];
  /** Body bytes of each ledger message. */
  ledgerBytes: number[];
  /** Function invocations by function name. */
  executions: Record<string, number>;
  /** Main-thread busy time (event-loop utilisation × wall time) from the first send until every event was out. */
  busyMs: number;
}

/** The cost phase's figures. */
export interface CostResults {
  short: { orders: number; perOrder: number; window: CostWindow };
  long: { entries: number; perLedger: number; windows: CostWindow[] };
}

/**
 * Runs the short orders (all ledgers at once), then the long order one ledger at a time, each ledger a window that
 * ends when its entries are applied and their events are on order-events.
 */
export async function costPhase(
  stack: BenchStack,
  short: Workload,
  long: LongOrderWorkload,
  settings: PhaseSettings,
): Promise<CostResults> {
  const phase = await stack.startHost({ registrations: stack.appFunctions, overrides: settings.overrides });
  const events = consumeOrderEvents(stack.emulators.serviceBusConnectionString);
  try {
    const run = (ledgers: Ledger[], messages: ServiceBusMessage[]) =>
      measureWindow(stack, phase.invocations, events, ledgers, messages, settings.timeoutMs);
    const shortWindow = await run(short.ledgers, short.entryMessages);
    await checkApplied(phase.host.httpUrl, short.orderIds, short.entryMessages.length / short.orderIds.length);
    const windows: CostWindow[] = [];
    for (const [i, ledger] of long.ledgers.entries())
      windows.push(await run([ledger], long.entryMessages[i] as ServiceBusMessage[]));
    await checkApplied(phase.host.httpUrl, [long.orderId], long.entryMessages.flat().length);
    return {
      short: {
        orders: short.orderIds.length,
        perOrder: short.entryMessages.length / short.orderIds.length,
        window: shortWindow,
      },
      long: { entries: long.entryMessages.flat().length, perLedger: long.ledgers[0]?.entries.length ?? 0, windows },
    };
  } finally {
    await events.close();
    await phase.close();
  }
}

async function measureWindow(
  stack: BenchStack,
  invocations: Map<string, number>,
  events: OrderEventsConsumer,
  ledgers: Ledger[],
  messages: ServiceBusMessage[],
  timeoutMs: number,
): Promise<CostWindow> {
  const before = new Map(invocations);
  await stack.resetCosmosCounters();
  const loop = performance.eventLoopUtilization();
  await sendLedgers(stack.bus, ledgers);
  const ids = messages.map((m) => eventKeyOf(m.body as { orderId: string; entryId: string }));
  await events.waitFor(ids, timeoutMs);
  const busyMs = performance.eventLoopUtilization(loop).active;
  const cosmos = await stack.cosmosCounters();
  const executions = Object.fromEntries(
    [...invocations].map(([name, n]) => [name, n - (before.get(name) ?? 0)]).filter(([, n]) => (n as number) > 0),
  );
  return {
    entries: messages.length,
    cosmos,
    eventBytes: ids.map((id) => events.seen.bodyBytes.get(id) ?? 0),
    entryMessageBytes: messages.map((m) => jsonBytes(m.body)),
    ledgerBytes: ledgers.map(jsonBytes),
    executions,
    busyMs,
  };
}

/** Several windows as one: counts added up, lists joined. */
export function joinWindows(windows: readonly CostWindow[]): CostWindow {
  const add = (pick: (c: CosmosCounts) => ByKind): ByKind => {
    const out: ByKind = { total: 0 };
    for (const w of windows) for (const [k, v] of Object.entries(pick(w.cosmos))) out[k] = (out[k] ?? 0) + v;
    return out;
  };
  const executions: Record<string, number> = {};
  for (const w of windows) for (const [k, v] of Object.entries(w.executions)) executions[k] = (executions[k] ?? 0) + v;
  return {
    entries: windows.reduce((n, w) => n + w.entries, 0),
    cosmos: {
      requests: add((c) => c.requests),
      requestUnits: add((c) => c.requestUnits),
      bytesWritten: add((c) => c.bytesWritten),
    },
    eventBytes: windows.flatMap((w) => w.eventBytes),
    entryMessageBytes: windows.flatMap((w) => w.entryMessageBytes),
    ledgerBytes: windows.flatMap((w) => w.ledgerBytes),
    executions,
    busyMs: windows.reduce((n, w) => n + w.busyMs, 0),
  };
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}
