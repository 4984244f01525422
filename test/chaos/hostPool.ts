import { join } from 'node:path';
import { startChild, type Child } from '@ledger-convoy/local-host';
import type { HostEvent } from './hostFaults.js';

/** What the hosts reported and suffered, counted by the pool. */
export interface HostCounters {
  /** Self-inflicted SIGKILLs between commit and settlement. */
  crashBeforeSettle: number;
  /** Self-inflicted SIGKILLs between a relay invocation's sends and its lease checkpoint. */
  relayCrash: number;
  /** SIGKILLs the run sent at random moments. */
  killedByRun: number;
  slowBeforeHandler: number;
  slowBeforeSettle: number;
  /** Settlements that failed (lost session lock, connection gone): the message comes back. */
  settleFailed: number;
  /** Host (re)starts, the first two included. */
  starts: number;
  /** Exits nobody asked for other than the injected crashes (should stay 0). */
  unexpectedExits: number;
  /** Log lines of interest the hosts wrote, by message (abandons, transient retries, session errors). */
  logged: Record<string, number>;
}

/** Host log messages worth counting in the report. */
const COUNTED_MESSAGES = new Set([
  'entry abandoned',
  'drain abandoned',
  'transient store failure, retrying',
  'store throttled, waiting',
  'session receive failed',
  'accepting a session failed',
  'message processed but not settled',
]);

/** Two (or more) competing function hosts, restarted whenever they die. */
export interface HostPool {
  readonly counters: HostCounters;
  /** Every tick of the hold timers of every host, in the order reported. */
  readonly holdTicks: readonly { startedAt: number; endedAt: number; holds: number; tried: number; released: number }[];
  /** Orders the relays put on hold. */
  readonly heldOrders: ReadonlySet<string>;
  /** The failure each hold was created for (`OutboxFailed`'s `lastError`), by order. */
  readonly holdErrors: ReadonlyMap<string, string[]>;
  /** Base URL (`http://127.0.0.1:<port>`) of a live host, waiting for one if all are restarting. */
  liveBaseUrl(): Promise<string>;
  /** SIGKILLs host `index` now; it is restarted after `downMs`. */
  kill(index: number, downMs: number): Promise<void>;
  /** Waits until every slot runs (a restart may be in flight). */
  allUp(): Promise<void>;
  stop(): Promise<void>;
}

/** Options of {@link startHostPool}. */
export interface HostPoolOptions {
  hosts: number;
  /** Settings every host gets (connections, core settings, `CHAOS_*` knobs except the seed). */
  env: NodeJS.ProcessEnv;
  /** Seed base: each incarnation of each host gets its own derived seed. */
  seed: number;
  logDir: string;
  /** Pause before restarting a host that crashed by itself. @default 500 */
  restartDelayMs?: number;
}

interface Slot {
  child?: Child;
  baseUrl?: string;
  starting?: Promise<void>;
  incarnation: number;
  /** Set while the run kills it on purpose. */
  killing: boolean;
}

/** Starts the hosts (`test/chaos/hostChild.ts`) and keeps them running until {@link HostPool.stop}. */
export async function startHostPool(options: HostPoolOptions): Promise<HostPool> {
  const counters: HostCounters = {
    crashBeforeSettle: 0,
    relayCrash: 0,
    killedByRun: 0,
    slowBeforeHandler: 0,
    slowBeforeSettle: 0,
    settleFailed: 0,
    starts: 0,
    unexpectedExits: 0,
    logged: {},
  };
  const slots: Slot[] = Array.from({ length: options.hosts }, () => ({ incarnation: 0, killing: false }));
  let stopping = false;
  const holdTicks: { startedAt: number; endedAt: number; holds: number; tried: number; released: number }[] = [];
  const heldOrders = new Set<string>();
  const holdErrors = new Map<string, string[]>();

  const onEvent = (value: Record<string, unknown>): void => {
    const event = value as unknown as HostEvent;
    if (event.chaos === 'crash') counters.crashBeforeSettle++;
    else if (event.chaos === 'relayCrash') counters.relayCrash++;
    else if (event.chaos === 'slow')
      counters[event.where === 'beforeHandler' ? 'slowBeforeHandler' : 'slowBeforeSettle']++;
    else if (event.chaos === 'settleFailed') counters.settleFailed++;
    else if (event.chaos === 'holdTick')
      holdTicks.push({
        startedAt: event.startedAt,
        endedAt: event.endedAt,
        holds: event.holds,
        tried: event.tried,
        released: event.released,
      });
    else if (event.chaos === 'held') for (const orderId of event.orders) heldOrders.add(orderId);
    else if (value.alert === 'OutboxFailed' && typeof value.orderId === 'string' && value.reason === undefined)
      holdErrors.set(value.orderId, [...(holdErrors.get(value.orderId) ?? []), String(value.lastError)]);
    else if (typeof value.msg === 'string' && COUNTED_MESSAGES.has(value.msg))
      counters.logged[value.msg] = (counters.logged[value.msg] ?? 0) + 1;
  };

  const launch = (index: number, delayMs: number): Promise<void> => {
    const slot = slots[index] as Slot;
    slot.baseUrl = undefined;
    slot.starting = (async () => {
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const { child, ready } = await startWithRetries(slot, index);
      counters.starts++;
      slot.child = child;
      slot.baseUrl = String(ready.httpUrl).replace(/\/api\/?$/, '');
      slot.starting = undefined;
      void child.exited.then(({ signal }) => {
        if (slot.child !== child || stopping) return;
        slot.child = undefined;
        slot.baseUrl = undefined;
        if (slot.killing) return; // kill() restarts it
        if (signal !== 'SIGKILL') counters.unexpectedExits++;
        void launch(index, options.restartDelayMs ?? 500).catch(() => undefined);
      });
    })();
    return slot.starting;
  };

  // A host that cannot start (its first ready line never comes) is tried again: startup is not under test.
  const startWithRetries = async (slot: Slot, index: number) => {
    for (let attempt = 1; ; attempt++) {
      const incarnation = ++slot.incarnation;
      try {
        return await startChild({
          script: 'test/chaos/hostChild.ts',
          env: { ...options.env, CHAOS_SEED: String((options.seed * 7919 + index * 104_729 + incarnation) >>> 0) },
          logFile: join(options.logDir, `host${index + 1}.log`),
          onJson: onEvent,
          isReady: (line) => line.chaos === 'ready',
          readyTimeoutMs: 120_000,
        });
      } catch (error) {
        // An injected crash can strike before the ready line (triggers start first): just start again.
        if (attempt >= 5 || stopping) throw error;
      }
    }
  };

  await Promise.all(slots.map((_, index) => launch(index, 0)));
  return {
    counters,
    holdTicks,
    heldOrders,
    holdErrors,
    async liveBaseUrl() {
      for (;;) {
        const live = slots.find((s) => s.baseUrl !== undefined);
        if (live?.baseUrl) return live.baseUrl;
        await Promise.race(slots.map((s) => s.starting ?? new Promise((resolve) => setTimeout(resolve, 200))));
      }
    },
    async kill(index, downMs) {
      const slot = slots[index] as Slot;
      // A host still (re)starting is killed once it is up, so that every planned kill happens.
      await slot.starting?.catch(() => undefined);
      if (slot.child === undefined || slot.killing || stopping) return;
      slot.killing = true;
      counters.killedByRun++;
      await slot.child.kill9();
      slot.killing = false;
      await launch(index, downMs);
    },
    async allUp() {
      for (;;) {
        const pending = slots.filter((s) => s.child === undefined || s.starting !== undefined);
        if (pending.length === 0) return;
        await Promise.all(pending.map((s) => s.starting ?? new Promise((resolve) => setTimeout(resolve, 200))));
      }
    },
    async stop() {
      stopping = true;
      await Promise.all(slots.map((s) => s.starting?.catch(() => undefined)));
      await Promise.all(slots.map((s) => s.child?.stop()));
    },
  };
}
