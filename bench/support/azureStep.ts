/**
 * One step of `bench:azure`: `convoy send --to http --rate <r>` for a number of seconds, a few orders watched through
 * `GET /api/orders/{id}` meanwhile for the latency, then `convoy verify` (nothing lost, doubled or reordered), and
 * the request units Cosmos DB charges for reading the watched orders. Talks only to what the settings name, so the
 * test runs it against the local stack and the bench against a deployment.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Container } from '@azure/cosmos';
import {
  FunctionApi,
  generateRun,
  runSend,
  runVerify,
  withOrdersContainer,
  type CliSettings,
  type GenerateOptions,
} from '@ledger-convoy/cli';

/** The shape and pace of a step. */
export interface StepOptions {
  /** Entries a second offered. */
  rate: number;
  seconds: number;
  seed: number;
  /** Prefix of the step's ids, so steps never share an order. */
  run: string;
  /** @default 10 */
  entriesPerOrder?: number;
  /** @default 20 */
  entriesPerLedger?: number;
  /** Orders watched for the latency. @default 10 */
  watchedOrders?: number;
  /** Pause between looks at the watched orders; a latency is late by at most this plus one GET. @default 500 */
  watchMs?: number;
  /** Give up verifying after this long. @default 600000 */
  verifyTimeoutMs?: number;
}

/** What a step measured. */
export interface StepResult {
  rate: number;
  entries: number;
  ledgers: number;
  /** Entries over the time from the first POST's start to the last one's answer. */
  sentPerSecond: number;
  /** The latest a POST started after its scheduled time (the app answered too slowly to keep the pace). */
  maxLagMs: number;
  /** Entries over the time from the first POST's start until `verify` saw every order as expected. */
  appliedPerSecond: number;
  /** From the last POST's answer until `verify` saw every order as expected (`verify` looks once a second). */
  drainMs: number;
  /** POST's start → the watched order's `lastSequence` reaching the entry, per watched entry. */
  latency: { samples: number; p50Ms: number; p99Ms: number; maxMs: number };
  verify: { ok: boolean; outcome: string; expected: number; matched: number; mismatched: number; missing: number };
  /** `GET /api/orders/{id}` the watching made: each reads Cosmos DB, which Azure Monitor's request units include. */
  watchReads: number;
  /** Request units Cosmos DB charged (`x-ms-request-charge`) for the bench's own reads of the watched orders. */
  readCharge: { orders: number; documents: number; requestUnits: number } | { error: string };
  /** `Date.now()` at the first POST and when `verify` finished. */
  window: { start: number; end: number };
}

/** The step's run: no duplicates, conflicts, poison, gaps or deletions, so every entry counts once. */
export function stepRun(options: StepOptions): GenerateOptions {
  const perOrder = options.entriesPerOrder ?? 10;
  const orders = Math.max(1, Math.ceil((options.rate * options.seconds) / perOrder));
  const ledgers = Math.max(1, Math.ceil((orders * perOrder) / (options.entriesPerLedger ?? 20)));
  return {
    orders,
    entries: perOrder,
    ledgers,
    duplicates: 0,
    conflicts: 0,
    poison: 0,
    gaps: 0,
    deleteRatio: 0,
    seed: options.seed,
    run: options.run,
  };
}

/** Runs one step against the app `settings` name. */
export async function runStep(settings: CliSettings, options: StepOptions): Promise<StepResult> {
  const shape = stepRun(options);
  const plan = generateRun(shape);
  const watched = spread(plan.orderIds, options.watchedOrders ?? 10);
  const watch = watchOrders(new FunctionApi(settings), watched, options.watchMs ?? 500);
  try {
    const sent = await runSend({ ...shape, to: 'http', rate: options.rate, out: undefined, settings });
    const sentAt = Date.now();
    const verified = await runVerify({
      expectation: sent.expectation,
      settings,
      timeoutMs: options.verifyTimeoutMs ?? 600_000,
    });
    const end = Date.now();
    const seen = await watch.stop();
    const start = sent.startedAt[0] as number;
    const entries = plan.entries.length;
    const { comparison } = verified;
    return {
      rate: options.rate,
      entries,
      ledgers: plan.counts.ledgers,
      sentPerSecond: entries / (Math.max(1, sentAt - start) / 1000),
      maxLagMs: sent.maxLagMs,
      appliedPerSecond: entries / (Math.max(1, end - start) / 1000),
      drainMs: end - sentAt,
      latency: latencies(plan, sent.startedAt, seen),
      verify: {
        ok: verified.ok,
        outcome: verified.outcome,
        expected: comparison.orders.expected,
        matched: comparison.orders.matched,
        mismatched: comparison.orders.mismatched.length,
        missing: comparison.orders.missing.length,
      },
      watchReads: seen.reads,
      readCharge: await readCharge(settings, watched),
      window: { start, end },
    };
  } finally {
    await watch.stop();
  }
}

/** When each watched order was first seen at each `lastSequence`: `orderId` → sequence → `Date.now()`. */
interface Seen {
  at: Map<string, Map<number, number>>;
  reads: number;
}

/**
 * Looks at `orderIds` every `pauseMs` until stopped, noting when each `lastSequence` first showed. Stopping looks
 * once more, after the caller saw every order final, so every watched entry has a time, however late the last look.
 */
function watchOrders(api: FunctionApi, orderIds: readonly string[], pauseMs: number): { stop(): Promise<Seen> } {
  const seen: Seen = { at: new Map(orderIds.map((id) => [id, new Map()])), reads: 0 };
  const look = () =>
    Promise.all(
      orderIds.map(async (id) => {
        seen.reads += 1;
        const view = await api.getOrder(id).catch(() => undefined);
        const at = Date.now();
        const sequences = seen.at.get(id) as Map<number, number>;
        if (view !== undefined && !sequences.has(view.lastSequence)) sequences.set(view.lastSequence, at);
      }),
    );
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await look();
      if (!stopped) await sleep(pauseMs);
    }
  })();
  let stopping: Promise<Seen> | undefined;
  return {
    stop() {
      stopped = true;
      stopping ??= loop.then(look).then(() => seen);
      return stopping;
    },
  };
}

/**
 * Each watched entry's latency: from its ledger's POST to the first look that found its order at its sequence or
 * later (entries apply in order, so a later `lastSequence` means this one was applied too).
 */
function latencies(
  plan: ReturnType<typeof generateRun>,
  startedAt: readonly number[],
  seen: Seen,
): StepResult['latency'] {
  const postedAt = new Map<string, number>();
  plan.sends.forEach((send, i) => {
    if (send.kind !== 'ledger') return;
    for (const entry of send.ledger.entries)
      if (!postedAt.has(entry.entryId)) postedAt.set(entry.entryId, startedAt[i] as number);
  });
  const values: number[] = [];
  for (const entry of plan.entries) {
    const sequences = seen.at.get(entry.orderId);
    if (sequences === undefined) continue;
    const firstSeen = Math.min(...[...sequences].filter(([s]) => s >= entry.sequence).map(([, at]) => at));
    const posted = postedAt.get(entry.entryId);
    if (Number.isFinite(firstSeen) && posted !== undefined) values.push(firstSeen - posted);
  }
  values.sort((a, b) => a - b);
  const at = (p: number) => values[Math.max(0, Math.ceil(p * values.length) - 1)] ?? Number.NaN;
  return { samples: values.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: values[values.length - 1] ?? Number.NaN };
}

/** The request units Cosmos DB answered for reading each watched order's partition whole. */
async function readCharge(settings: CliSettings, orderIds: readonly string[]): Promise<StepResult['readCharge']> {
  try {
    return await withOrdersContainer(settings.app, async (container: Container) => {
      let documents = 0;
      let requestUnits = 0;
      for (const orderId of orderIds) {
        const answer = await container.items.query('SELECT * FROM c', { partitionKey: orderId }).fetchAll();
        documents += answer.resources.length;
        requestUnits += answer.requestCharge;
      }
      return { orders: orderIds.length, documents, requestUnits };
    });
  } catch (error) {
    return { error: (error as Error).message.split('\n')[0] as string };
  }
}

/** Up to `count` of `ids`, evenly spread (the first and the last included). */
function spread(ids: readonly string[], count: number): string[] {
  if (ids.length <= count) return [...ids];
  return Array.from(
    { length: count },
    (_, i) => ids[Math.round((i * (ids.length - 1)) / Math.max(1, count - 1))] as string,
  );
}
