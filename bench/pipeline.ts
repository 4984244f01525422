/**
 * Pipeline benchmark (`npm run bench:pipeline [-- --sessions N --session-idle-ms N --runs 3 --latency-seconds 60
 * --warmup-seconds 10 --cosmos-orders 40 --seed 7 --cost-only --azure-latency --azure-orders 1000]`).
 *
 * Measures the configuration we ship: the repository's host.json, unless a flag overrides a value (the header then
 * says so). In one run on the embedded stack (the emulators `npm start` uses, the app in the in-process host):
 * end-to-end entries/s of two interleaved-ledger workloads, a plain @azure/service-bus session consumer on the same
 * messages as the raw reference and the ratio, latency at a steady 50 entries/s, session accepts and Cosmos
 * requests per entry; then what an entry costs on Azure (request units, bytes, Service Bus operations, executions)
 * for short orders and for one long order (`--cost-only` runs the warm-up and that phase alone, and says so in the
 * header). Every phase uses its own orders, so phases never interfere. `--azure-latency` runs (b) and one order alone
 * on emulators that answer at Azure's in-region latency, half and twice it (`azureLatency.ts`). Each run ends with
 * what a deployment sustains and costs (`capacity.ts`, the table of docs/capacity.md).
 */
import { QueueName } from '../src/core/queueNames.js';
import { startBenchStack, type BenchStack } from './support/benchStack.js';
import { headerLines, loadBenchSettings, phaseTimeoutMs, type BenchSettings } from './support/benchSettings.js';
import { LATENCY_LOAD, latencyPhase, latencyWorkload } from './support/latency.js';
import { cosmosPhase, pipelinePhase, type PhaseSettings } from './support/phases.js';
import { drainSessions, type RawResult } from './support/rawConsumer.js';
import { median, report, type BenchResults } from './support/report.js';
import { costPhase } from './support/costs.js';
import { costReport } from './support/costReport.js';
import { benchArgs, wholeArg } from './support/benchArgs.js';
import { AZURE_LATENCY_MS, latencyStudy, latencyStudyReport } from './support/azureLatency.js';
import { capacitySection } from './support/capacity.js';
import { measuredCapacityInputs } from './support/costReport.js';
import { templateDefaults } from './support/templateDefaults.js';
import {
  longOrderWorkload,
  sendEntryMessages,
  workload,
  type Workload,
  type WorkloadSize,
} from './support/workload.js';

const USAGE = [
  'Usage: npm run bench:pipeline [-- options]',
  "  --sessions N          maxConcurrentSessions instead of host.json's (printed in the header)",
  "  --session-idle-ms N   sessionIdleTimeout instead of host.json's (printed in the header)",
  '  --runs N              runs of workload (b) and its raw reference (default 3)',
  "  --latency-seconds N   the latency phase's measured seconds (default 60)",
  '  --warmup-seconds N    its warm-up seconds (default 10)',
  '  --cosmos-orders N     orders of the Cosmos round-trip phase (default 40)',
  "  --seed N              the workloads' seed (default 7)",
  '  --cost-only           the warm-up and the cost phase alone',
  "  --azure-latency       (b) and one order at Azure's in-region latency, half and twice it, alone",
  "  --azure-orders N      orders of (b) in --azure-latency (default 1000, (b)'s; printed in the header)",
].join('\n');
const values = benchArgs(USAGE, {
  sessions: { type: 'string' },
  'session-idle-ms': { type: 'string' },
  runs: { type: 'string', default: '3' },
  'latency-seconds': { type: 'string', default: '60' },
  'warmup-seconds': { type: 'string', default: '10' },
  'cosmos-orders': { type: 'string', default: '40' },
  seed: { type: 'string', default: '7' },
  'cost-only': { type: 'boolean', default: false },
  'azure-latency': { type: 'boolean', default: false },
  'azure-orders': { type: 'string' },
});

const SMALL: WorkloadSize = { orders: 200, entries: 10, ledgers: 20 };
const LARGE: WorkloadSize = { orders: 1000, entries: 10, ledgers: 100 };
/** The cost phase: short orders of 10 entries, and one long order of 1,000 sent as ledgers of 100. */
const COST_SHORT: WorkloadSize = { orders: 100, entries: 10, ledgers: 10 };
const COST_LONG = { entries: 1000, perLedger: 100 } as const;
const costOnly = values['cost-only'] === true;
const azureLatency = values['azure-latency'] === true;
const azureSize: WorkloadSize =
  values['azure-orders'] === undefined
    ? LARGE
    : { ...LARGE, orders: whole(values['azure-orders'], 1, 'azure-orders'), ledgers: LARGE.ledgers };
const seed = whole(values.seed, 0, 'seed');
const runs = whole(values.runs, 1, 'runs');
const warmupSeconds = whole(values['warmup-seconds'], 0, 'warmup-seconds');
const measureSeconds = whole(values['latency-seconds'], 1, 'latency-seconds');
const cosmosOrders = whole(values['cosmos-orders'], 1, 'cosmos-orders');
const settings = await loadBenchSettings({
  maxConcurrentSessions: values.sessions === undefined ? undefined : whole(values.sessions, 1, 'sessions'),
  sessionIdleTimeoutMs:
    values['session-idle-ms'] === undefined ? undefined : whole(values['session-idle-ms'], 1, 'session-idle-ms'),
});
const started = performance.now();
const header = [
  ...headerLines(settings),
  ...(costOnly ? ['PHASES: --cost-only, the warm-up and the cost phase alone.'] : []),
  ...(azureLatency ? ["PHASES: --azure-latency, (b) and one order at Azure's latencies alone."] : []),
  ...(azureSize === LARGE ? [] : [`OVERRIDE: --azure-orders ${azureSize.orders} ((b): ${LARGE.orders})`]),
];
const template = templateDefaults();
progress(header.join('\n'));

// The SDK keeps the session accepts still pending when a host closes on timers until its operation timeout (60 s,
// see local/servicebus/sessionTrigger.ts): exit once the report is out instead of waiting for them.
await main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);

async function main(): Promise<void> {
  // Every input up front, so a workload that cannot be generated fails before the long phases run.
  const smallWork = workload('be2ea', SMALL, seed);
  const largeWork = Array.from({ length: runs }, (_, i) => ({
    raw: workload(`braw${i + 1}`, LARGE, seed),
    e2e: workload(`be2eb${i + 1}`, LARGE, seed),
  }));
  const latencyWork = latencyWorkload(warmupSeconds + measureSeconds, seed);
  const cosmosSize: WorkloadSize = { orders: cosmosOrders, entries: SMALL.entries, ledgers: SMALL.ledgers };
  const cosmosWork = workload('bcosmos', cosmosSize, seed);
  const costShort = workload('bcost', COST_SHORT, seed);
  const costLong = longOrderWorkload('bcostlong', COST_LONG, seed);
  // Warm-up (not reported): loads every module and opens the first connections; one order per session slot.
  const warm: WorkloadSize = { orders: settings.inForce.maxConcurrentSessions, entries: 2, ledgers: 2 };
  const phase = (size: WorkloadSize): PhaseSettings => ({
    overrides: settings.overrides,
    timeoutMs: phaseTimeoutMs(settings, size.orders, size.orders * size.entries),
  });
  if (azureLatency) {
    const study = await latencyStudy({ size: azureSize, runs, seed, phase, warmup: warm, progress });
    const sessions = settings.inForce.maxConcurrentSessions;
    const published = study.find((r) => r.latencyMs === AZURE_LATENCY_MS);
    const measured = published && {
      entriesPerSecondPerSlot: median(published.perSecond) / sessions,
      oneOrderEntriesPerSecond: published.oneOrder,
    };
    await print(
      [
        'Pipeline benchmark (npm run bench:pipeline)',
        ...header,
        '',
        ...latencyStudyReport(study, sessions, azureSize),
        '',
        ...capacitySection(measured ?? {}, template),
      ].join('\n'),
    );
    return;
  }

  const stack = await startBenchStack();
  try {
    await pipelinePhase(stack, workload('bwarm', warm, seed), phase(warm));
    progress('warm-up done');
    const costSettings = phase({ orders: COST_SHORT.orders, entries: COST_SHORT.entries, ledgers: COST_SHORT.ledgers });
    if (costOnly) {
      const costs = await costPhase(stack, costShort, costLong, costSettings);
      const capacity = capacitySection(measuredCapacityInputs(costs), template);
      await print(
        ['Pipeline benchmark (npm run bench:pipeline)', ...header, '', ...costReport(costs), '', ...capacity].join(
          '\n',
        ),
      );
      return;
    }

    const small = await pipelinePhase(stack, smallWork, phase(SMALL));
    progress(`(a) end to end: ${small.perSecond.toFixed(1)} entries/s`);

    const large: BenchResults['large']['runs'] = [];
    for (const [i, work] of largeWork.entries()) {
      const raw = await rawRun(stack, settings, work.raw);
      const e2e = await pipelinePhase(stack, work.e2e, phase(LARGE));
      large.push({ raw, e2e });
      progress(
        `(b) run ${i + 1}/${runs}: raw ${raw.perSecond.toFixed(0)} msg/s, end to end ${e2e.perSecond.toFixed(1)} entries/s`,
      );
    }

    const latencyTotal = latencyWork.ledgers.length * LATENCY_LOAD.entriesPerLedger;
    const latency = await latencyPhase(stack, latencyWork, {
      overrides: settings.overrides,
      timeoutMs: phaseTimeoutMs(settings, LATENCY_LOAD.orders, latencyTotal),
      warmupSeconds,
      measureSeconds,
    });
    progress(`latency: p50 ${latency.p50Ms.toFixed(0)} ms, p99 ${latency.p99Ms.toFixed(0)} ms`);

    const cosmos = await cosmosPhase(stack, cosmosWork, phase(cosmosSize));
    progress('Cosmos round trips done');

    const costs = await costPhase(stack, costShort, costLong, costSettings);
    progress('costs done');

    const results: BenchResults = {
      settings,
      small: { size: SMALL, result: small },
      large: { size: LARGE, runs: large },
      latency: { result: latency, warmupSeconds, measureSeconds },
      cosmos,
    };
    const capacity = capacitySection(measuredCapacityInputs(costs), template);
    await print(`${report(results)}\n\n${costReport(costs).join('\n')}\n\n${capacity.join('\n')}`);
  } finally {
    await stack.close();
  }
}

/** One raw reference run alone (no host running): workload (b)'s `orders` messages sent first, then drained. */
async function rawRun(stack: BenchStack, s: BenchSettings, work: Workload): Promise<RawResult> {
  await sendEntryMessages(stack.bus, work.entryMessages);
  return drainSessions({
    connectionString: stack.emulators.serviceBusConnectionString,
    queue: QueueName.Orders,
    sessions: s.inForce.maxConcurrentSessions,
    messages: work.entryMessages.length,
    timeoutMs: phaseTimeoutMs(s, 0, work.entryMessages.length),
  });
}

/** Written before the exit above, which would cut an unflushed write short. */
function print(text: string): Promise<void> {
  return new Promise<void>((resolve) => process.stdout.write(`${text}\n`, () => resolve()));
}

function progress(text: string): void {
  process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0)} s] ${text}\n`);
}

function whole(text: string | undefined, min: number, name: string): number {
  return wholeArg(USAGE, text, min, name);
}
