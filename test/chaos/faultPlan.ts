import type { FaultRuleInput } from '@ledger-convoy/cosmos-emulator';
import { Prng } from '@ledger-convoy/cli';
import type { ChaosOptions } from './chaosOptions.js';

/** One fault the run injects from outside the hosts, at `atMs` after the start of the window. */
export type PlannedFault =
  | { atMs: number; kind: 'hostKill'; host: number; downMs: number }
  | { atMs: number; kind: 'serviceBusRestart'; downMs: number }
  | { atMs: number; kind: 'cosmos'; label: 'throttle429' | 'unavailable503' | 'commitThenFail'; rule: FaultRuleInput }
  /** Every batch (the processor's commits) answered 429 for `lastsMs`, longer than the lock and the retry budget. */
  | { atMs: number; kind: 'cosmos'; label: 'sustainedThrottle'; rule: FaultRuleInput; lastsMs: number }
  /** The next host whose relay invocation delivered SIGKILLs itself right after it, before the lease checkpoint. */
  | { atMs: number; kind: 'relayCrash' }
  /** The webhook answers 503 for these orders (indexes into the run's orders) for `downMs`, then recovers. */
  | { atMs: number; kind: 'webhookOutage'; orderIndexes: number[]; downMs: number }
  /** One of the relay's leases (index into them, modulo their count) is taken by a ghost owner and left expired. */
  | { atMs: number; kind: 'leaseLost'; lease: number };

/**
 * The run's external faults, from its seed: which, with what parameters, and when (offsets into the window). The
 * plan is reproducible; what the system is doing at each moment is not (real time, real processes).
 */
export function planFaults(options: ChaosOptions): PlannedFault[] {
  const rng = new Prng(options.seed ^ 0x5eed_fa17);
  const window = options.durationMs;
  const at = (from = 0.05, to = 0.95): number => Math.round(window * (from + rng.next() * (to - from)));
  const plan: PlannedFault[] = [];
  for (let i = 0; i < options.hostKills; i++) {
    plan.push({ atMs: at(), kind: 'hostKill', host: rng.int(0, options.hosts - 1), downMs: rng.int(200, 1_500) });
  }
  // Spread the broker restarts over the middle of the window, where sends and processing overlap.
  for (let i = 0; i < options.serviceBusRestarts; i++) {
    const slice = 0.5 / Math.max(1, options.serviceBusRestarts);
    plan.push({
      atMs: at(0.2 + i * slice, 0.2 + (i + 1) * slice),
      kind: 'serviceBusRestart',
      downMs: rng.int(300, 2_000),
    });
  }
  const operation = (): 'batch' | '*' => (rng.chance(0.6) ? 'batch' : '*');
  for (let i = 0; i < options.throttleBursts; i++) {
    plan.push({
      atMs: at(),
      kind: 'cosmos',
      label: 'throttle429',
      rule: { operation: operation(), status: 429, count: rng.int(5, 40), retryAfterMs: rng.int(20, 400) },
    });
  }
  // Sustained throttling in the middle of the window, while entries flow: rule 8 waits it out, no delivery spent.
  for (let i = 0; i < options.sustainedThrottles; i++) {
    plan.push({
      atMs: at(0.3, 0.5),
      kind: 'cosmos',
      label: 'sustainedThrottle',
      rule: { operation: 'batch', status: 429, count: 1_000_000_000, retryAfterMs: rng.int(200, 1_000) },
      lastsMs: options.lockDurationS * 1000 + options.retryBudgetMs + rng.int(1_000, 5_000),
    });
  }
  for (let i = 0; i < options.unavailableBursts; i++) {
    plan.push({
      atMs: at(),
      kind: 'cosmos',
      label: 'unavailable503',
      rule: { operation: operation(), status: 503, count: rng.int(5, 30) },
    });
  }
  for (let i = 0; i < options.commitThenFail; i++) {
    plan.push({
      atMs: at(),
      kind: 'cosmos',
      label: 'commitThenFail',
      rule: {
        mode: 'commit-then-fail',
        operation: 'batch',
        reply: rng.chance(0.5) ? 'destroy' : '503',
        count: rng.int(1, 3),
      },
    });
  }
  for (let i = 0; i < options.relayCrashes; i++) plan.push({ atMs: at(0.1, 0.7), kind: 'relayCrash' });
  // Outages longer than the relay's retry budget, while events flow (the first 60 %), so the failed orders go on hold.
  for (let i = 0; i < options.webhookOutages; i++) {
    const orderIndexes = [
      ...new Set(Array.from({ length: options.webhookOutageOrders }, () => rng.int(0, options.orders - 1))),
    ].sort((a, b) => a - b);
    plan.push({
      atMs: at(0.1, 0.5),
      kind: 'webhookOutage',
      orderIndexes,
      downMs: rng.int(3, 6) * options.relayRetryBudgetMs,
    });
  }
  // A lone order's outage (it is alone in its change batches), and the webhook down for every order at once.
  for (let i = 0; i < options.loneWebhookOutages; i++) {
    plan.push({
      atMs: at(0.1, 0.5),
      kind: 'webhookOutage',
      orderIndexes: [rng.int(0, options.orders - 1)],
      downMs: rng.int(3, 6) * options.relayRetryBudgetMs,
    });
  }
  for (let i = 0; i < options.wideWebhookOutages; i++) {
    plan.push({
      atMs: at(0.1, 0.5),
      kind: 'webhookOutage',
      orderIndexes: Array.from({ length: options.orders }, (_, o) => o),
      downMs: rng.int(3, 6) * options.relayRetryBudgetMs,
    });
  }
  for (let i = 0; i < options.leaseLosses; i++)
    plan.push({ atMs: at(0.1, 0.8), kind: 'leaseLost', lease: rng.int(0, 1_000) });
  return plan.sort((a, b) => a.atMs - b.atMs);
}

/** The orders (indexes) whose webhook some outage of the plan fails. */
export function webhookFailedOrders(plan: readonly PlannedFault[]): Set<number> {
  return new Set(plan.flatMap((f) => (f.kind === 'webhookOutage' ? f.orderIndexes : [])));
}

/** Counts of a plan by kind, for the report. */
export function countPlan(plan: readonly PlannedFault[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const fault of plan) {
    const key = fault.kind === 'cosmos' ? fault.label : fault.kind;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
