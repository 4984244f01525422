/**
 * `bench:pipeline --azure-latency`: workload (b) and one order on its own, on emulators that answer each operation
 * no earlier than Azure's published in-region latency after it arrived, and at half and twice that. A sensitivity
 * study: it informs host.json, it does not by itself change it.
 */
import { table } from '@ledger-convoy/cli';
import { startBenchStack } from './benchStack.js';
import { pipelinePhase, type PhaseSettings } from './phases.js';
import { median } from './report.js';
import { workload, type WorkloadSize } from './workload.js';

/**
 * The round trip each emulator operation is given (docs/benchmarks.md, "Azure's latencies, simulated"): Cosmos
 * DB's SLA bounds point reads and writes at < 10 ms at the 99th percentile in region (direct mode; the JavaScript
 * SDK goes through the gateway, one hop more); Microsoft publishes no latency figure for Service Bus (Standard is documented as
 * variable latency, Premium as predictable), so it is given the same 10 ms.
 */
export const AZURE_LATENCY_MS = 10;
/** None (the local baseline, in the same run), half, published, twice. */
const LATENCY_FACTORS = [0, 0.5, 1, 2] as const;
/** One order on its own: its entries in one ledger, applied one after another in its session. */
const ONE_ORDER: WorkloadSize = { orders: 1, entries: 100, ledgers: 1 };

/** What one latency gave. */
export interface LatencyStudyRun {
  latencyMs: number;
  /** Workload (b) end to end on one instance (the in-process host), per run. */
  perSecond: number[];
  /** One order's entries/s. */
  oneOrder: number;
}

/** Runs (b) `runs` times and one order at each latency, on a stack started for that latency. */
export async function latencyStudy(options: {
  size: WorkloadSize;
  runs: number;
  seed: number;
  phase: (size: WorkloadSize) => PhaseSettings;
  warmup: WorkloadSize;
  progress: (text: string) => void;
}): Promise<LatencyStudyRun[]> {
  const out: LatencyStudyRun[] = [];
  for (const factor of LATENCY_FACTORS) {
    const latencyMs = AZURE_LATENCY_MS * factor;
    const tag = `l${latencyMs}`.replace('.', 'p');
    const stack = await startBenchStack({ latencyMs });
    try {
      await pipelinePhase(stack, workload(`bwarm${tag}`, options.warmup, options.seed), options.phase(options.warmup));
      const perSecond: number[] = [];
      for (let i = 0; i < options.runs; i++) {
        const r = await pipelinePhase(
          stack,
          workload(`blat${tag}r${i}`, options.size, options.seed),
          options.phase(options.size),
        );
        perSecond.push(r.perSecond);
        options.progress(`${latencyMs} ms: (b) run ${i + 1}/${options.runs}: ${r.perSecond.toFixed(1)} entries/s`);
      }
      const one = await pipelinePhase(stack, workload(`bone${tag}`, ONE_ORDER, options.seed), options.phase(ONE_ORDER));
      options.progress(`${latencyMs} ms: one order ${one.perSecond.toFixed(1)} entries/s`);
      out.push({ latencyMs, perSecond, oneOrder: one.perSecond });
    } finally {
      await stack.close();
    }
  }
  return out;
}

/** The study's section of the report. */
export function latencyStudyReport(runs: readonly LatencyStudyRun[], sessions: number, size: WorkloadSize): string[] {
  return [
    `Azure's latencies, simulated: each emulator operation answered no earlier than the latency after it arrived (+ up to 10 % jitter); ` +
      `${AZURE_LATENCY_MS} ms is Cosmos DB's published in-region bound for point operations (< 10 ms at p99), given to Service Bus too ` +
      '(no published figure); half and twice that, and none (the local baseline). ' +
      `(b) = ${size.orders} orders × ${size.entries} entries in ${size.ledgers} interleaved ledgers, one instance with ${sessions} session slots; ` +
      `one order = ${ONE_ORDER.entries} entries of one order in one ledger.`,
    table(
      ['latency', '(b) entries/s per instance (median)', 'runs', 'entries/s per session slot', 'one order, entries/s'],
      runs.map((r) => {
        const m = median(r.perSecond);
        return [
          `${r.latencyMs} ms`,
          m.toFixed(1),
          r.perSecond.map((v) => v.toFixed(1)).join(', '),
          (m / sessions).toFixed(2),
          r.oneOrder.toFixed(1),
        ];
      }),
      100,
    ),
  ];
}
