import { readdirSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { CosmosDBv4FunctionOptions, InvocationContext, TimerFunctionOptions } from '@azure/functions';
import type { FunctionRegistration } from '../../src/functions/register.js';
import { Prng } from '@ledger-convoy/cli';
import { errorMessage } from '../../src/core/index.js';

/** Faults a host child injects into its own order processor (read from `CHAOS_*` environment variables). */
export interface HostFaultSettings {
  /** Seed of this host incarnation's generator. */
  seed: number;
  /** Probability that the process kills itself (SIGKILL) right before completing an `orders` message. */
  crashBeforeSettleP: number;
  /** Probability that a handler call sleeps `slowMs` first (before the handler, or between its commit and settlement). */
  slowP: number;
  /** How long a slow handler sleeps: longer than the `orders` lock, so the session lock is lost mid-session. */
  slowMs: number;
  /**
   * A file holding the epoch ms at which the fault window ends (absent: no window yet). The run writes it once its
   * hosts are up, so every incarnation, first or restarted, stops injecting at the same moment.
   */
  windowFile: string | undefined;
  /**
   * Where the run orders relay crashes (`CHAOS_RELAY_CRASH_DIR`), a file per crash: the next relay invocation of any
   * host that delivered something claims one and SIGKILLs its process before the checkpoint (a host holding no
   * relay lease never invokes the relay, so the crash goes to whichever host relays).
   */
  relayCrashDir: string | undefined;
}

/** A line a host child writes on stdout so the run can count what it injected and what it saw. */
export type HostEvent =
  | { chaos: 'ready'; httpUrl: string }
  | { chaos: 'crash'; entryId?: string }
  | { chaos: 'relayCrash'; documents: number }
  /** Orders a relay invocation put on hold. */
  | { chaos: 'held'; orders: string[] }
  /** One tick of the hold timer, with what it did. */
  | { chaos: 'holdTick'; startedAt: number; endedAt: number; holds: number; tried: number; released: number }
  | { chaos: 'slow'; where: 'beforeHandler' | 'beforeSettle'; entryId?: string }
  | { chaos: 'settleFailed'; action: string; entryId?: string; error: string };

/** Writes one event line synchronously: it must be out before a SIGKILL the next statement sends. */
export function emitHostEvent(event: HostEvent): void {
  writeSync(1, `${JSON.stringify(event)}\n`);
}

/** Reads the fault settings of a host child from its environment. */
export function hostFaultSettingsFrom(env: NodeJS.ProcessEnv): HostFaultSettings {
  const num = (name: string, fallback: number): number => {
    const value = Number(env[name] ?? fallback);
    if (!Number.isFinite(value)) throw new Error(`${name} must be a number`);
    return value;
  };
  return {
    seed: num('CHAOS_SEED', 1),
    crashBeforeSettleP: num('CHAOS_CRASH_P', 0),
    slowP: num('CHAOS_SLOW_P', 0),
    slowMs: num('CHAOS_SLOW_MS', 0),
    windowFile: env.CHAOS_WINDOW_FILE,
    relayCrashDir: env.CHAOS_RELAY_CRASH_DIR || undefined,
  };
}

interface Actions {
  complete(message: unknown): Promise<void>;
  deadletter(message: unknown, ...rest: unknown[]): Promise<void>;
  abandon(message: unknown, ...rest: unknown[]): Promise<void>;
}

/**
 * Wraps the `orderProcessor` registration so that, at random but from a seed, it sleeps past the lock duration or
 * crashes the process between the handler's store commit and the message's settlement (the processor settles only
 * after its commit). Failed settlements (a lost lock) are reported. Other registrations pass through unchanged.
 */
export function withHostFaults(
  registrations: readonly FunctionRegistration[],
  settings: HostFaultSettings,
): FunctionRegistration[] {
  const rng = new Prng(settings.seed);
  const window = faultWindow(settings.windowFile);
  return registrations.map((registration) => {
    if (registration.kind === 'cosmosDB' && registration.name === 'outboxRelay')
      return withRelayCrash(registration, settings.relayCrashDir);
    if (registration.kind === 'timer' && registration.name === 'outboxHoldRetry') return withTickReports(registration);
    if (registration.kind !== 'serviceBusQueue' || registration.name !== 'orderProcessor') return registration;
    const handler = registration.options.handler;
    const wrapped: typeof handler = async (input, context) => {
      const { messages, actions } = input as { messages: { body?: unknown }; actions: Actions };
      const entryId = entryIdOf(messages?.body);
      const active = window();
      const slow =
        active && rng.chance(settings.slowP) ? (rng.chance(0.5) ? 'beforeHandler' : 'beforeSettle') : undefined;
      const crash = active && rng.chance(settings.crashBeforeSettleP);
      if (slow === 'beforeHandler') {
        emitHostEvent({ chaos: 'slow', where: slow, entryId });
        await sleep(settings.slowMs);
      }
      const faulty: Actions = {
        ...actions,
        complete: async (message) => {
          if (slow === 'beforeSettle') {
            emitHostEvent({ chaos: 'slow', where: slow, entryId });
            await sleep(settings.slowMs);
          }
          if (crash) {
            emitHostEvent({ chaos: 'crash', entryId });
            process.kill(process.pid, 'SIGKILL');
          }
          return reported('complete', entryId, () => actions.complete(message));
        },
        deadletter: (message, ...rest) => reported('deadletter', entryId, () => actions.deadletter(message, ...rest)),
        abandon: (message, ...rest) => reported('abandon', entryId, () => actions.abandon(message, ...rest)),
      };
      return handler({ ...(input as object), actions: faulty }, context);
    };
    return { ...registration, options: { ...registration.options, handler: wrapped } };
  });
}

/**
 * Wraps the relay so that, when the run asked for it, the process dies after an invocation that sent something and
 * before the trigger checkpoints it (the host checkpoints only after the handler returns): the next owner replays it.
 */
function withRelayCrash(
  registration: FunctionRegistration & { kind: 'cosmosDB' },
  dir: string | undefined,
): FunctionRegistration {
  // Claimed by renaming it away: of two hosts that see the same order, only one carries it out.
  const claim = (): boolean => {
    let names: string[];
    try {
      names = readdirSync(dir!).filter((n) => n.endsWith('.ordered'));
    } catch {
      return false; // no crash ordered yet
    }
    for (const name of names) {
      try {
        renameSync(join(dir!, name), join(dir!, `${name}.${process.pid}.claimed`));
        return true;
      } catch {
        // another host claimed it
      }
    }
    return false;
  };
  const handler = registration.options.handler as (
    documents: unknown[],
    context: InvocationContext,
  ) => Promise<unknown>;
  const wrapped = async (documents: unknown[], context: InvocationContext): Promise<unknown> => {
    const report = (await handler(documents, context)) as { delivered?: number; held?: string[] } | undefined;
    if (report?.held !== undefined && report.held.length > 0) emitHostEvent({ chaos: 'held', orders: report.held });
    if (dir !== undefined && (report?.delivered ?? 0) > 0 && claim()) {
      emitHostEvent({ chaos: 'relayCrash', documents: Array.isArray(documents) ? documents.length : 0 });
      process.kill(process.pid, 'SIGKILL');
    }
    return report;
  };
  return {
    kind: 'cosmosDB',
    name: registration.name,
    options: { ...registration.options, handler: wrapped } as CosmosDBv4FunctionOptions,
  };
}

/** Reports each tick of the hold timer (when it ran, what it released), so the run can count ticks to drain. */
function withTickReports(registration: FunctionRegistration & { kind: 'timer' }): FunctionRegistration {
  const handler = registration.options.handler as (timer: unknown, context: InvocationContext) => Promise<unknown>;
  const wrapped = async (timer: unknown, context: InvocationContext): Promise<unknown> => {
    const startedAt = Date.now();
    const report = (await handler(timer, context)) as { holds: number; tried: number; released: number } | undefined;
    if (report !== undefined)
      emitHostEvent({
        chaos: 'holdTick',
        startedAt,
        endedAt: Date.now(),
        holds: report.holds,
        tried: report.tried,
        released: report.released,
      });
    return report;
  };
  return {
    kind: 'timer',
    name: registration.name,
    options: { ...registration.options, handler: wrapped } as TimerFunctionOptions,
  };
}

/** Whether the fault window is open now; the file is read at most once a second. */
function faultWindow(file: string | undefined): () => boolean {
  let checkedAt = 0;
  let until = 0;
  return () => {
    const now = Date.now();
    if (file !== undefined && now - checkedAt > 1_000) {
      checkedAt = now;
      try {
        until = Number(readFileSync(file, 'utf8')) || 0;
      } catch {
        until = 0;
      }
    }
    return now < until;
  };
}

async function reported(action: string, entryId: string | undefined, settle: () => Promise<void>): Promise<void> {
  try {
    await settle();
  } catch (error) {
    emitHostEvent({ chaos: 'settleFailed', action, entryId, error: errorMessage(error) });
    throw error;
  }
}

function entryIdOf(body: unknown): string | undefined {
  const value = typeof body === 'object' && body !== null ? (body as { entryId?: unknown }).entryId : undefined;
  return typeof value === 'string' ? value : undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
