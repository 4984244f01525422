import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CosmosClient, type Container } from '@azure/cosmos';
import { ServiceBusClient } from '@azure/service-bus';
import { start as startCosmos, type CosmosEmulator } from '@ledger-convoy/cosmos-emulator';
import { ensureCosmosResources } from '@ledger-convoy/local-host';
import { expectationOf } from '@ledger-convoy/cli';
import type { ChaosOptions } from './chaosOptions.js';
import { repoPath } from '@ledger-convoy/local-host';
import { countPlan, planFaults, webhookFailedOrders, type PlannedFault } from './faultPlan.js';
import { startHostPool, type HostCounters, type HostPool } from './hostPool.js';
import { checkInvariants, invariantsHold, type InvariantResult } from './invariants.js';
import { eventIdentity } from './observe.js';
import { loseLease, orderRelayCrash, relayCrashDir } from './relayFaults.js';
import { CosmosOutboxHoldStore } from '../../src/adapters/outboxHoldCosmosStore.js';
import { settle } from './settle.js';
import { startServiceBusProcess, type ServiceBusProcess } from './serviceBusProcess.js';
import { startWebhookTarget, type WebhookTarget } from './webhookTarget.js';
import { buildWorkload, produce } from './workload.js';

/** What a chaos run did and found. */
export interface ChaosReport {
  ok: boolean;
  seed: number;
  run: string;
  wallMs: number;
  workload: {
    entries: number;
    orders: number;
    sends: Record<string, number>;
    expectedDeadLetters: number;
    generatorCounts: Record<string, number>;
  };
  /** Faults injected, by kind (planned external ones as executed, host-side ones as reported by the hosts). */
  faults: Record<string, number>;
  /** What the system showed while recovering. */
  observed: Record<string, number>;
  settledAfterMs: number;
  invariants: InvariantResult[];
  runDir: string;
}

/** Runs the whole fault-injection scenario and checks the invariants; never throws for a violation. */
export async function runChaos(
  options: ChaosOptions,
  log: (line: string) => void = () => undefined,
): Promise<ChaosReport> {
  const startedAt = Date.now();
  const runDir = await mkdtemp(join(tmpdir(), 'ledger-convoy-chaos-'));
  const cleanups: (() => Promise<void>)[] = [];
  let passed = false;
  try {
    const configFile = await writeEntityFile(runDir, options.lockDurationS);
    const cosmos: CosmosEmulator = await startCosmos({ port: 0 });
    cleanups.unshift(() => cosmos.close());
    await ensureCosmosResources(cosmos.connectionString);
    const bus: ServiceBusProcess = await startServiceBusProcess({
      configFile,
      dataDir: join(runDir, 'servicebus-data'),
      logDir: runDir,
    });
    cleanups.unshift(() => bus.stop());
    const webhook: WebhookTarget = await startWebhookTarget();
    cleanups.unshift(() => webhook.close());
    const windowFile = join(runDir, 'fault-window');
    const env = hostEnv(
      options,
      { serviceBus: bus.connectionString, cosmos: cosmos.connectionString, webhookUrl: webhook.url },
      windowFile,
      runDir,
    );
    const pool: HostPool = await startHostPool({ hosts: options.hosts, seed: options.seed, logDir: runDir, env });
    cleanups.unshift(() => pool.stop());
    log(`stack up in ${Date.now() - startedAt} ms (run dir ${runDir})`);

    const workload = buildWorkload(options);
    const expectation = expectationOf(workload.run);
    const plan = planFaults(options);
    const client = new ServiceBusClient(bus.connectionString, {
      retryOptions: { maxRetries: 3, retryDelayInMs: 300, timeoutInMs: 10_000 },
    });
    cleanups.unshift(() => client.close());

    const container = new CosmosClient(cosmos.connectionString).database('convoy').container('orders');
    const failedOrders = [...webhookFailedOrders(plan)].map((i) => workload.run.orderIds[i] as string);
    const observed = { sendRetries: 0, leasesNotYetCreated: 0 };
    const windowStart = Date.now();
    await writeFile(windowFile, String(windowStart + options.durationMs));
    const executed: Record<string, number> = {};
    const targets: PlanTargets = {
      pool,
      bus,
      cosmos,
      webhook,
      container,
      runDir,
      orderIds: workload.run.orderIds,
      onNoLease: () => observed.leasesNotYetCreated++,
    };
    const faults = runPlan(plan, windowStart, targets, (fault) => {
      const key = fault.kind === 'cosmos' ? fault.label : fault.kind;
      executed[key] = (executed[key] ?? 0) + 1;
      log(
        `+${Math.round((Date.now() - windowStart) / 1000)}s fault ${key}${fault.kind === 'hostKill' ? ` host${fault.host + 1}` : ''}`,
      );
    });
    await produce(client, workload.sends, options.durationMs * 0.6, () => observed.sendRetries++);
    log(`+${Math.round((Date.now() - windowStart) / 1000)}s all ${workload.sends.length} messages sent`);
    await faults;
    cosmos.faults.clear();
    // A relay that gave its lease up in a 503 burst can wait out the lease's expiry (60 s) past the window: its
    // webhook outages end only once they failed a POST and lasted (a hang guard, not a wait that should suffice).
    if (!(await webhook.outagesOver(150_000))) log('webhook outages not all met within 150 s; ending them');
    webhook.recover();
    const recoveredAt = Date.now();
    // No operator from here on: the hold timers of the hosts release every hold.
    const holds = new CosmosOutboxHoldStore(container);
    const heldAtRecovery = new Set((await holds.list().catch(() => [])).map((h) => h.doc.orderId));
    const drained = drainedAt(holds, heldAtRecovery, recoveredAt + options.settleTimeoutMs);
    await pool.allUp();
    log(`+${Math.round((Date.now() - windowStart) / 1000)}s fault window over; settling`);

    const settled = await settle({
      expectation,
      client,
      container,
      pool,
      timeoutMs: options.settleTimeoutMs,
      relayLeft: () => relayLeft(holds, container, webhook),
      log,
    });
    const invariants = checkInvariants(expectation, workload.run.entries, workload.reusedKeys, settled.observation, {
      webhookPosts: webhook.posts,
      // The orders the webhook actually refused (a subset of the plan's): a hold of any other order is a violation.
      failedWebhookOrders: webhook.failedOrders,
      heldOrders: pool.heldOrders,
      holdErrors: pool.holdErrors,
    });
    const drain = holdDrain(recoveredAt, heldAtRecovery.size, await drained, pool.holdTicks);
    invariants.push(drain.result);
    const counters: HostCounters = pool.counters;
    const cosmosCounters = cosmos.counters();
    passed = invariantsHold(invariants) && counters.unexpectedExits === 0;
    await writeFile(join(runDir, 'webhook-posts.jsonl'), webhook.posts.map((p) => JSON.stringify(p)).join('\n'));
    return {
      ok: passed,
      seed: options.seed,
      run: workload.run.run,
      wallMs: Date.now() - startedAt,
      workload: {
        entries: workload.run.entries.length,
        orders: workload.run.orderIds.length,
        sends: workload.counts,
        expectedDeadLetters: expectation.deadLetters.length,
        generatorCounts: { ...workload.run.counts },
      },
      faults: {
        ...Object.fromEntries(Object.keys(countPlan(plan)).map((k) => [k, executed[k] ?? 0])),
        // Kills planned while the target was still restarting are skipped: count the real ones.
        hostKill: counters.killedByRun,
        crashBeforeSettle: counters.crashBeforeSettle,
        // Ordered crashes happen at the host's next relay invocation that sent something: count the real ones.
        relayCrash: counters.relayCrash,
        webhookFailedOrders: failedOrders.length,
        slowBeforeHandler: counters.slowBeforeHandler,
        slowBeforeSettle: counters.slowBeforeSettle,
        duplicateLedgerSends: workload.counts.resentLedger + workload.counts.ledgerUnderNewId,
        duplicateEntriesInLedgers: workload.run.counts.duplicateEntries,
        directDuplicateEntrySends: workload.counts.directDuplicate,
        competingHosts: options.hosts,
      },
      observed: {
        ...observed,
        hostStarts: counters.starts,
        settlementsFailed: counters.settleFailed,
        unexpectedHostExits: counters.unexpectedExits,
        ...counters.logged,
        webhookPosts: webhook.posts.length,
        webhookRejected: webhook.posts.filter((p) => p.status !== 200).length,
        ordersHeld: pool.heldOrders.size,
        holdsAtRecovery: drain.holdsAtRecovery,
        holdTicksToDrain: drain.ticks,
        holdsDrainedAfterMs: drain.afterMs,
        ordersWebhookFailed: webhook.failedOrders.size,
        cosmosRequests: cosmosCounters.total,
        cosmosBatches: cosmosCounters.batch ?? 0,
      },
      settledAfterMs: settled.waitedMs,
      invariants,
      runDir,
    };
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
    // A failed run keeps its logs and broker data for diagnosis.
    if (passed && !options.keep) await rm(runDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * Resolves with when none of the orders held at recovery was seen on hold any more (polled every 5 s: a listing is
 * a cross-partition query the run's own Cosmos emulator serves while it also serves the hosts), or
 * `undefined` past `until`. (A hold created later — a POST that timed out on a loaded machine — is not the outage's;
 * "no hold left" checks that it is gone too.)
 */
async function drainedAt(
  holds: CosmosOutboxHoldStore,
  held: ReadonlySet<string>,
  until: number,
): Promise<number | undefined> {
  while (Date.now() < until) {
    const left = await holds.list().then(
      (all) => all.filter((h) => held.has(h.doc.orderId)).length,
      () => -1,
    );
    if (left === 0) return Date.now();
    await new Promise((resolve) => setTimeout(resolve, 5_000));
  }
  return undefined;
}

/** What is left for the webhook: holds, and stored events it has not accepted. */
async function relayLeft(
  holds: CosmosOutboxHoldStore,
  container: Container,
  webhook: WebhookTarget,
): Promise<{ holds: number; unaccepted: number }> {
  const query = "SELECT c.orderId, c.entryId FROM c WHERE c.docType = 'entry' AND c.status = 'applied'";
  const { resources: records } = await container.items
    .query<{ orderId: string; entryId: string }>(query, { maxItemCount: 5_000 })
    .fetchAll();
  const accepted = new Set(webhook.posts.filter((p) => p.status >= 200 && p.status < 300).map((p) => p.key));
  return {
    holds: await holds.count(),
    unaccepted: records.filter((r) => !accepted.has(eventIdentity(r.orderId, r.entryId))).length,
  };
}

/**
 * Most hold-timer ticks after the webhook recovered that the holds may take to drain (docs/operations.md, "Outbox
 * holds"): a release that failed just before the recovery is due again within `OUTBOX_HOLD_RETRY_MAX` (PT5M, five
 * ticks), and the tick after that releases it.
 */
export const MAX_DRAIN_TICKS = 6;

/**
 * How many ticks of the hold timer (every minute, on every host at once) started after the webhook recovered and
 * before the holds were all gone: every hold must drain through the timer within {@link MAX_DRAIN_TICKS} of them.
 */
function holdDrain(
  recoveredAt: number,
  atRecovery: number,
  drainedAtMs: number | undefined,
  ticks: readonly { startedAt: number }[],
) {
  const minutes = (from: number, to: number) =>
    new Set(ticks.filter((t) => t.startedAt > from && t.startedAt <= to).map((t) => Math.floor(t.startedAt / 60_000)))
      .size;
  const count =
    drainedAtMs === undefined
      ? Number.POSITIVE_INFINITY
      : drainedAtMs <= recoveredAt
        ? 0
        : minutes(recoveredAt, drainedAtMs);
  const problems =
    drainedAtMs === undefined
      ? ['holds were left when settling ended']
      : count > MAX_DRAIN_TICKS
        ? [`the holds took ${count} ticks of the hold timer to drain`]
        : [];
  const afterMs = drainedAtMs === undefined ? -1 : Math.max(0, drainedAtMs - recoveredAt);
  return {
    holdsAtRecovery: atRecovery,
    ticks: Number.isFinite(count) ? count : -1,
    afterMs,
    result: {
      name: `every hold drains through the hold timer within ${MAX_DRAIN_TICKS} of its ticks after the webhook recovers (no operator)`,
      ok: problems.length === 0,
      summary: `${atRecovery} hold(s) when the webhook recovered; drained ${afterMs} ms after it, ${Number.isFinite(count) ? count : '∞'} tick(s)`,
      violations: problems,
    },
  };
}

/** What the planned faults act on. */
interface PlanTargets {
  pool: HostPool;
  bus: ServiceBusProcess;
  cosmos: CosmosEmulator;
  webhook: WebhookTarget;
  /** `orders`, whose database holds the relay's `leases`. */
  container: Container;
  runDir: string;
  orderIds: readonly string[];
  /** A lease loss planned before the relay had made its leases. */
  onNoLease: () => void;
}

/** Executes the external faults at their planned offsets; resolves once the last one is done. */
async function runPlan(
  plan: readonly PlannedFault[],
  windowStart: number,
  targets: PlanTargets,
  onFault: (fault: PlannedFault) => void,
): Promise<void> {
  const pending: Promise<void>[] = [];
  for (const [index, fault] of plan.entries()) {
    const wait = windowStart + fault.atMs - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    onFault(fault);
    if (fault.kind === 'hostKill') pending.push(targets.pool.kill(fault.host, fault.downMs));
    else if (fault.kind === 'serviceBusRestart') await targets.bus.crashAndRestart(fault.downMs);
    else if (fault.kind === 'relayCrash') await orderRelayCrash(targets.runDir, index);
    else if (fault.kind === 'webhookOutage')
      targets.webhook.fail(
        fault.orderIndexes.map((i) => targets.orderIds[i] as string),
        fault.downMs,
        (id) => targets.pool.heldOrders.has(id),
      );
    else if (fault.kind === 'leaseLost') pending.push(loseLeaseOnce(targets, fault.lease));
    else {
      const rule = targets.cosmos.faults.add(fault.rule);
      if (fault.label === 'sustainedThrottle')
        pending.push(
          new Promise((resolve) => setTimeout(resolve, fault.lastsMs)).then(() => targets.cosmos.faults.remove(rule)),
        );
    }
  }
  await Promise.all(pending);
}

/**
 * A lease loss; a Cosmos fault of the plan may fail the write, so it is tried again until the fault passes (two
 * minutes is a hang guard only: the plan's Cosmos faults last seconds, however busy the machine).
 */
async function loseLeaseOnce(targets: PlanTargets, lease: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      if (!(await loseLease(targets.container, lease))) targets.onNoLease();
      return;
    } catch (error) {
      if (attempt >= 240) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** The repository's entity file with a short `orders` lock, so a slow handler outlives it. */
async function writeEntityFile(runDir: string, lockDurationS: number): Promise<string> {
  const config = JSON.parse(await readFile(repoPath('infra/servicebus.config.json'), 'utf8')) as {
    UserConfig: { Namespaces: { Queues: { Name: string; Properties: Record<string, unknown> }[] }[] };
  };
  for (const namespace of config.UserConfig.Namespaces) {
    for (const queue of namespace.Queues)
      if (queue.Name === 'orders') queue.Properties.LockDuration = `PT${lockDurationS}S`;
  }
  const file = join(runDir, 'servicebus.config.json');
  await writeFile(file, JSON.stringify(config, null, 2));
  return file;
}

/** Settings of every host: the emulators, the core's settings matching the chaos entity file, the fault knobs. */
function hostEnv(
  options: ChaosOptions,
  connections: { serviceBus: string; cosmos: string; webhookUrl: string },
  windowFile: string,
  runDir: string,
): Record<string, string | undefined> {
  const { serviceBus, cosmos, webhookUrl } = connections;
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    ServiceBusConnection: serviceBus,
    CosmosConnection: cosmos,
    // CHAOS_LOG_LEVEL=info also logs the hosts' lease moves (and every entry) for a diagnosis.
    LOG_LEVEL: process.env.CHAOS_LOG_LEVEL ?? 'warn',
    ORDERS_LOCK_DURATION: `PT${options.lockDurationS}S`,
    TRANSIENT_RETRY_BUDGET: String(options.retryBudgetMs),
    TRANSIENT_RETRY_MAX_DELAY: '1000',
    CHAOS_MAX_SESSIONS: String(options.maxConcurrentSessions),
    CHAOS_SESSION_IDLE_MS: '1000',
    // Lock renewal off: a handler slower than the lock loses the session mid-session.
    CHAOS_LOCK_RENEWAL_MS: '0',
    CHAOS_CRASH_P: String(options.crashBeforeSettleP),
    CHAOS_SLOW_P: String(options.slowP),
    CHAOS_SLOW_MS: String(options.lockDurationS * 1000 + 1_500),
    CHAOS_WINDOW_FILE: windowFile,
    OUTBOX_WEBHOOK_URL: webhookUrl,
    OUTBOX_RETRY_BUDGET: String(options.relayRetryBudgetMs),
    CHAOS_RELAY_CRASH_DIR: relayCrashDir(runDir),
  };
}
