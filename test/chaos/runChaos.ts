import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CosmosClient } from '@azure/cosmos';
import { ServiceBusClient } from '@azure/service-bus';
import { start as startCosmos, type CosmosEmulator } from '../../emulators/cosmos/index.js';
import { ensureCosmosResources } from '../../local/cosmosResources.js';
import { expectationOf } from '../../cli/expectation.js';
import type { ChaosOptions } from './chaosOptions.js';
import { repoFile } from './childProcess.js';
import { countPlan, planFaults, type PlannedFault } from './faultPlan.js';
import { startHostPool, type HostCounters, type HostPool } from './hostPool.js';
import { checkInvariants, type InvariantResult } from './invariants.js';
import { settle } from './settle.js';
import { startServiceBusProcess, type ServiceBusProcess } from './serviceBusProcess.js';
import { buildWorkload, produce } from './workload.js';

/** What a chaos run did and found. */
export interface ChaosReport {
  ok: boolean;
  seed: number;
  run: string;
  wallMs: number;
  workload: { entries: number; orders: number; sends: Record<string, number>; expectedDeadLetters: number; generatorCounts: Record<string, number> };
  /** Faults injected, by kind (planned external ones as executed, host-side ones as reported by the hosts). */
  faults: Record<string, number>;
  /** What the system showed while recovering. */
  observed: Record<string, number>;
  settledAfterMs: number;
  invariants: InvariantResult[];
  runDir: string;
}

/** Runs the whole fault-injection scenario and checks the invariants; never throws for a violation. */
export async function runChaos(options: ChaosOptions, log: (line: string) => void = () => undefined): Promise<ChaosReport> {
  const startedAt = Date.now();
  const runDir = await mkdtemp(join(tmpdir(), 'ledger-convoy-chaos-'));
  const cleanups: (() => Promise<void>)[] = [];
  let passed = false;
  try {
    const configFile = await writeEntityFile(runDir, options.lockDurationS);
    const cosmos: CosmosEmulator = await startCosmos({ port: 0 });
    cleanups.unshift(() => cosmos.close());
    await ensureCosmosResources(cosmos.connectionString);
    const bus: ServiceBusProcess = await startServiceBusProcess({ configFile, dataDir: join(runDir, 'servicebus-data'), logDir: runDir });
    cleanups.unshift(() => bus.stop());
    const windowFile = join(runDir, 'fault-window');
    const pool: HostPool = await startHostPool({
      hosts: options.hosts,
      seed: options.seed,
      logDir: runDir,
      env: hostEnv(options, bus.connectionString, cosmos.connectionString, windowFile),
    });
    cleanups.unshift(() => pool.stop());
    log(`stack up in ${Date.now() - startedAt} ms (run dir ${runDir})`);

    const workload = buildWorkload(options);
    const expectation = expectationOf(workload.run);
    const plan = planFaults(options);
    const client = new ServiceBusClient(bus.connectionString, { retryOptions: { maxRetries: 3, retryDelayInMs: 300, timeoutInMs: 10_000 } });
    cleanups.unshift(() => client.close());

    const observed = { sendRetries: 0 };
    const windowStart = Date.now();
    await writeFile(windowFile, String(windowStart + options.durationMs));
    const executed: Record<string, number> = {};
    const faults = runPlan(plan, windowStart, { pool, bus, cosmos }, (fault) => {
      const key = fault.kind === 'cosmos' ? fault.label : fault.kind;
      executed[key] = (executed[key] ?? 0) + 1;
      log(`+${Math.round((Date.now() - windowStart) / 1000)}s fault ${key}${fault.kind === 'hostKill' ? ` host${fault.host + 1}` : ''}`);
    });
    await produce(client, workload.sends, options.durationMs * 0.6, () => observed.sendRetries++);
    log(`+${Math.round((Date.now() - windowStart) / 1000)}s all ${workload.sends.length} messages sent`);
    await faults;
    cosmos.faults.clear();
    await pool.allUp();
    log(`+${Math.round((Date.now() - windowStart) / 1000)}s fault window over; settling`);

    const container = new CosmosClient(cosmos.connectionString).database('convoy').container('orders');
    const settled = await settle({ expectation, client, container, pool, timeoutMs: options.settleTimeoutMs, log });
    const invariants = checkInvariants(expectation, workload.run.entries, workload.reusedKeys, settled.observation);
    const counters: HostCounters = pool.counters;
    const cosmosCounters = cosmos.counters();
    passed = invariants.every((i) => i.ok) && counters.unexpectedExits === 0;
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

/** Executes the external faults at their planned offsets; resolves once the last one is done. */
async function runPlan(
  plan: readonly PlannedFault[],
  windowStart: number,
  targets: { pool: HostPool; bus: ServiceBusProcess; cosmos: CosmosEmulator },
  onFault: (fault: PlannedFault) => void,
): Promise<void> {
  const pending: Promise<void>[] = [];
  for (const fault of plan) {
    const wait = windowStart + fault.atMs - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    onFault(fault);
    if (fault.kind === 'hostKill') pending.push(targets.pool.kill(fault.host, fault.downMs));
    else if (fault.kind === 'serviceBusRestart') await targets.bus.crashAndRestart(fault.downMs);
    else targets.cosmos.faults.add(fault.rule);
  }
  await Promise.all(pending);
}

/** The repository's entity file with a short `orders` lock, so a slow handler outlives it. */
async function writeEntityFile(runDir: string, lockDurationS: number): Promise<string> {
  const config = JSON.parse(await readFile(repoFile('infra/servicebus.config.json'), 'utf8')) as {
    UserConfig: { Namespaces: { Queues: { Name: string; Properties: Record<string, unknown> }[] }[] };
  };
  for (const namespace of config.UserConfig.Namespaces) {
    for (const queue of namespace.Queues) if (queue.Name === 'orders') queue.Properties.LockDuration = `PT${lockDurationS}S`;
  }
  const file = join(runDir, 'servicebus.config.json');
  await writeFile(file, JSON.stringify(config, null, 2));
  return file;
}

/** Settings of every host: the emulators, the core's settings matching the chaos entity file, the fault knobs. */
function hostEnv(options: ChaosOptions, serviceBus: string, cosmos: string, windowFile: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    ServiceBusConnection: serviceBus,
    CosmosConnection: cosmos,
    LOG_LEVEL: 'warn',
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
  };
}
