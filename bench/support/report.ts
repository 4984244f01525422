/** The pipeline bench's printed report: figures, goals (printed, never asserted) and how each was measured. */
import { table } from '@ledger-convoy/cli';
import type { ByKind, CosmosCounts } from './benchStack.js';
import { headerLines, type BenchSettings } from './benchSettings.js';
import { LATENCY_LOAD, type LatencyResult } from './latency.js';
import type { CosmosCosts, PipelineResult } from './phases.js';
import { RAW_RECEIVE_WAIT_MS, type RawResult } from './rawConsumer.js';
import type { WorkloadSize } from './workload.js';

/** The goals the bench reports against. */
const GOALS = { ratio: 0.5, p50Ms: 250, cosmosPerEntry: 1.5, eventP50Ms: 500 } as const;

/** Everything one run measured. */
export interface BenchResults {
  settings: BenchSettings;
  small: { size: WorkloadSize; result: PipelineResult };
  large: { size: WorkloadSize; runs: { raw: RawResult; e2e: PipelineResult }[] };
  latency: { result: LatencyResult; warmupSeconds: number; measureSeconds: number };
  cosmos: CosmosCosts;
}

/** The report as printed. */
export function report(r: BenchResults): string {
  const { settings, small, large, latency } = r;
  const sessions = settings.inForce.maxConcurrentSessions;
  const runs = large.runs;
  const e2eMedian = median(runs.map((x) => x.e2e.perSecond));
  const rawMedian = median(runs.map((x) => x.raw.perSecond));
  const ratios = runs.map((x) => x.e2e.perSecond / x.raw.perSecond);
  const ratioMedian = median(ratios);
  const l = latency.result;
  const loadReached = l.sentPerSecond >= 0.95 * l.offeredPerSecond;

  const e2eRow = (label: string, run: number | string, x: PipelineResult) => [
    label,
    run,
    x.messages,
    fixed(x.seconds, 1),
    fixed(x.perSecond, 1),
    cpuPerEntry(x.cpu.mainMs, x.messages),
    cpuPerEntry(x.cpu.processMs, x.messages),
    fixed(x.busyMs / x.messages, 3),
    fixed(x.sessionAccepts / x.messages, 3),
    fixed(x.relayedSeconds, 1),
    fixed(x.cosmos.requests.total / x.messages, 2),
    x.duplicateEvents,
  ];
  const cosmosMedian = median(runs.map((x) => x.e2e.cosmos.requests.total / x.e2e.messages));
  const busyMedian = median(runs.map((x) => x.e2e.busyMs / x.e2e.messages));
  const mainCpu = runs.map((x) => x.e2e.cpu.mainMs);
  const mainCpuMedian = mainCpu.every((ms) => ms !== undefined)
    ? median(mainCpu.map((ms, i) => ms / runs[i]!.e2e.messages))
    : undefined;
  const processCpuMedian = median(runs.map((x) => x.e2e.cpu.processMs / x.e2e.messages));
  const lastLarge = runs[runs.length - 1]!.e2e;
  return [
    'Pipeline benchmark (npm run bench:pipeline)',
    ...headerLines(settings),
    '',
    'End to end, interleaved ledgers to the ledger queue:',
    table(
      [
        'workload',
        'run',
        'entries',
        'seconds',
        'entries/s',
        'main thread CPU ms/entry',
        'process CPU ms/entry',
        'main loop busy ms/entry',
        'session accepts/entry',
        'all events out s',
        'Cosmos req/entry',
        'repeated events',
      ],
      [
        e2eRow(`(a) ${describe(small.size)}`, 1, small.result),
        ...runs.map((x, i) => e2eRow(i === 0 ? `(b) ${describe(large.size)}` : '', i + 1, x.e2e)),
        [
          '(b) median',
          '',
          '',
          '',
          fixed(e2eMedian, 1),
          mainCpuMedian === undefined ? 'n/a' : fixed(mainCpuMedian, 3),
          fixed(processCpuMedian, 3),
          fixed(busyMedian, 3),
          '',
          '',
          fixed(cosmosMedian, 2),
          '',
        ],
      ],
      100,
    ),
    `Cosmos requests of workload (b)'s last run by kind, per entry (processor and outbox relay, every kind): ${byKind(lastLarge.cosmos.requests, lastLarge.messages)}`,
    '',
    `Raw reference: plain @azure/service-bus on orders, no host running; ${sessions} workers on one client, each ` +
      `acceptNextSession → receiveMessages(1, { maxWaitTimeInMs: ${RAW_RECEIVE_WAIT_MS} }) → completeMessage, session closed on an empty ` +
      `receive; peek-lock, no prefetch, SDK defaults otherwise. Workload (b)'s orders messages, sent before timing.`,
    table(
      ['run', 'messages', 'seconds', 'msg/s', 'session accepts'],
      [
        ...runs.map((x, i) => [
          i + 1,
          x.raw.messages,
          fixed(x.raw.seconds, 1),
          fixed(x.raw.perSecond, 0),
          x.raw.sessionAccepts,
        ]),
        ['median', '', '', fixed(rawMedian, 0), ''],
      ],
    ),
    '',
    'Workload (b), end to end ÷ raw (each pair run back to back):',
    table(
      ['run', 'e2e entries/s', 'raw msg/s', 'ratio'],
      [
        ...runs.map((x, i) => [
          i + 1,
          fixed(x.e2e.perSecond, 1),
          fixed(x.raw.perSecond, 0),
          percent(ratios[i] as number),
        ]),
        ['median', fixed(e2eMedian, 1), fixed(rawMedian, 0), percent(ratioMedian)],
      ],
    ),
    '',
    `Latency, POST /api/ledgers → entry applied: ${LATENCY_LOAD.orders} orders, ledgers of ${LATENCY_LOAD.entriesPerLedger} entries, ` +
      `offered ${l.offeredPerSecond} entries/s (${LATENCY_LOAD.ledgersPerSecond} ledgers/s), ${latency.measureSeconds} s measured after ${latency.warmupSeconds} s warm-up:`,
    table(
      [
        'p50 ms',
        'p99 ms',
        'max ms',
        'samples',
        'sent entries/s',
        'max send lag ms',
        'applied entries/s in window',
        'drain after last POST s',
        'out of order',
        'session accepts/entry',
      ],
      [
        [
          fixed(l.p50Ms, 0),
          fixed(l.p99Ms, 0),
          fixed(l.maxMs, 0),
          l.samples,
          fixed(l.sentPerSecond, 1),
          fixed(l.maxSendLagMs, 0),
          fixed(l.appliedPerSecond, 1),
          fixed(l.drainSeconds, 1),
          l.outOfOrder,
          fixed(l.sessionAccepts / l.entries, 3),
        ],
      ],
    ),
    `Event latency, entry committed with its event (committedAt) → its event enqueued on the order-events topic (read from subscription all), same entries (${l.event.samples}): ` +
      `p50 ${fixed(l.event.p50Ms, 0)} ms, p99 ${fixed(l.event.p99Ms, 0)} ms, max ${fixed(l.event.maxMs, 0)} ms`,
    ...(l.appliedPerSecond < 0.95 * l.offeredPerSecond
      ? [`FELL BEHIND: ${fixed(l.appliedPerSecond, 1)} of ${l.offeredPerSecond} entries/s applied during the window.`]
      : []),
    ...(loadReached ? [] : [`LOAD NOT REACHED: ${fixed(l.sentPerSecond, 1)} of ${l.offeredPerSecond} entries/s sent.`]),
    '',
    ...cosmosTable(r.cosmos, sessions),
    '',
    'Goals (printed, not asserted):',
    `- workload (b) end to end ≥ ${GOALS.ratio} × raw reference: median ratio ${fixed(ratioMedian, 3)} — ${ratioMedian >= GOALS.ratio ? 'met' : 'not met'}`,
    `- p50 ≤ ${GOALS.p50Ms} ms at ${l.offeredPerSecond} entries/s: p50 ${fixed(l.p50Ms, 0)} ms at ${fixed(l.sentPerSecond, 1)} entries/s sent — ` +
      `${l.p50Ms <= GOALS.p50Ms && loadReached ? 'met' : 'not met'}`,
    `- Cosmos requests per applied entry ≤ ${GOALS.cosmosPerEntry} over workload (b), every kind: median ${fixed(cosmosMedian, 2)} — ${cosmosMedian <= GOALS.cosmosPerEntry ? 'met' : 'not met'}`,
    `- event latency committedAt → order-events p50 ≤ ${GOALS.eventP50Ms} ms: p50 ${fixed(l.event.p50Ms, 0)} ms — ${l.event.p50Ms <= GOALS.eventP50Ms ? 'met' : 'not met'}`,
    '',
    'How each figure was measured (one process: the emulators in worker threads of their own, the host and the bench on the main thread):',
    'e2e: a fresh in-process host per run; all ledgers sent at once to ledger (one message each, as convoy send), timed from the first',
    '  send until the host logged "message processed" (completed) for every entry; then every order read over HTTP (all applied, nothing parked).',
    "main thread CPU ms/entry: the main thread's user + system CPU over the timed part (the functions, the in-process host and the",
    "  bench's sends; not the emulators' threads; process.threadCpuUsage, else /proc/<pid>/task/<pid>/stat) ÷ entries: the function",
    "  side's CPU per entry, the figure that sizes a Flex instance. process CPU ms/entry: every thread of the process, emulators included.",
    "main loop busy ms/entry: the main thread's event-loop utilisation × wall time ÷ entries: time the loop was not idle, CPU or not.",
    'session accepts/entry: the session trigger\'s "session accepted" log lines ÷ entries. Cosmos req/entry: /_emulator/counters ÷ entries,',
    "  counted from the first send until every entry's event was taken from order-events subscription all (a consumer in the bench, started once the",
    "  e2e timing ends so it takes no CPU from it; the relay's end is the last event's enqueue time), so the relay's",
    '  change-feed reads, hold reads, lease checkpoints and renewals are in; no HTTP reads run meanwhile (the order check comes after).',
    "event latency: enqueuedTimeUtc of the entry's order-events message (the topic's enqueue time, as subscription all delivers it) − the committedAt of the entry's record (one machine, one clock).",
    'raw: timed from the first acceptNextSession to the last completeMessage. ratio: e2e entries/s ÷ raw msg/s, per pair, median of the pairs.',
    'latency: each POST\'s start time is computed from the phase start (no drift, at most 64 POSTs awaiting their 202); "applied" is the',
    "  host's log time of the entry's completed line, or of its predecessor's when it arrived first and was parked (out of order).",
    'Cosmos round trips: entries sent in order straight to orders, counted until the processor completed them, on a host without the',
    "  outbox relay (its requests are in workload (b)'s figure).",
  ].join('\n');
}

function cosmosTable(costs: CosmosCosts, sessions: number): string[] {
  const row = (label: string, c: CosmosCounts) => [
    label,
    fixed(c.requests.total / costs.entries, 2),
    byKind(c.requests, costs.entries),
  ];
  return [
    `Cosmos round trips of the processor (${costs.entries} entries, ${sessions} sessions):`,
    table(
      ['', 'per entry', 'by kind (per entry)'],
      [
        row('applied entry', costs.fresh),
        row('duplicate, warm cache', costs.duplicatesWarm),
        row('duplicate, restarted host', costs.duplicatesCold),
      ],
      100,
    ),
  ];
}

/** `kind n, kind n` per `per`, by kind name, `total` left out. */
export function byKind(counts: ByKind, per: number): string {
  return Object.entries(counts)
    .filter(([kind]) => kind !== 'total')
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, n]) => `${kind} ${fixed(n / per, 2)}`)
    .join(', ');
}

function describe(size: WorkloadSize): string {
  return `${size.orders.toLocaleString('en')} orders × ${size.entries} entries in ${size.ledgers} ledgers`;
}

/** Median of the values (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** CPU ms per entry, or n/a where the platform does not tell the main thread's CPU. */
function cpuPerEntry(ms: number | undefined, entries: number): string {
  return ms === undefined ? 'n/a' : fixed(ms / entries, 3);
}

function percent(ratio: number): string {
  return `${fixed(100 * ratio, 1)} %`;
}

function fixed(value: number, digits: number): string {
  return value.toFixed(digits);
}
