/**
 * Pipeline benchmark (`npm run bench:pipeline [-- --orders 200 --entries 10 --ledgers 20 --sessions 1,8,32]`).
 *
 * In one run on the embedded stack (the emulators `npm start` uses, the app's functions in the in-process host):
 * raw broker throughput of session messages and end-to-end entries/s through splitter and processor at each
 * session concurrency, their ratio, the splitter's sends per ledger, and the Cosmos round trips per applied entry
 * and per duplicate. Every phase uses its own orders, so phases never interfere.
 */
import { parseArgs } from 'node:util';
import { table } from '../cli/table.js';
import { startBenchStack } from './support/benchStack.js';
import type { CosmosCounts } from './support/benchStack.js';
import { cosmosPhase, pipelinePhase, rawPhase, type PhaseSettings } from './support/phases.js';
import { workload, type WorkloadSize } from './support/workload.js';

const { values } = parseArgs({
  options: {
    orders: { type: 'string', default: '200' },
    entries: { type: 'string', default: '10' },
    ledgers: { type: 'string', default: '20' },
    sessions: { type: 'string', default: '1,8,32' },
    'session-idle-ms': { type: 'string', default: '100' },
    'cosmos-orders': { type: 'string', default: '100' },
    seed: { type: 'string', default: '7' },
  },
});

const size: WorkloadSize = { orders: int(values.orders), entries: int(values.entries), ledgers: int(values.ledgers) };
const levels = values.sessions.split(',').map(int);
const seed = int(values.seed);
// The host releases a session after this long without a message; host.json's 5 s would dominate at 1 session.
const settings: PhaseSettings = { sessionIdleTimeoutMs: int(values['session-idle-ms']), timeoutMs: 300_000 };
const total = size.orders * size.entries;

const stack = await startBenchStack();
try {
  // Warm-up (not reported): loads every module and opens the first connections.
  await pipelinePhase(stack, 8, workload('bwarm', { orders: 10, entries: 3, ledgers: 2 }, seed), settings);

  const rows: (string | number)[][] = [];
  for (const n of levels) {
    const raw = await rawPhase(stack, n, workload(`braw${n}`, size, seed), settings);
    const e2e = await pipelinePhase(stack, n, workload(`be2e${n}`, size, seed), settings);
    rows.push([
      n,
      fixed(raw.perSecond, 0),
      fixed(e2e.perSecond, 0),
      `${fixed((100 * e2e.perSecond) / raw.perSecond, 1)} %`,
      `${fixed(raw.seconds, 1)} / ${fixed(e2e.seconds, 1)}`,
      fixed(e2e.cosmos.total / e2e.messages, 2),
      `${fixed(e2e.splitterSends / e2e.ledgers, 2)} (${e2e.splitterSends}/${e2e.ledgers})`,
    ]);
    process.stderr.write(`sessions ${n}: raw ${fixed(raw.perSecond, 0)} msg/s, end-to-end ${fixed(e2e.perSecond, 0)} entries/s\n`);
  }
  const cosmosWork = workload('bcosmos', { orders: int(values['cosmos-orders']), entries: size.entries, ledgers: size.ledgers }, seed);
  const costs = await cosmosPhase(stack, 8, cosmosWork, settings);

  const lines = [
    `Pipeline benchmark: ${size.orders} orders × ${size.entries} entries in ${size.ledgers} ledgers per run (${total} entries), ` +
      `sessionIdleTimeout ${settings.sessionIdleTimeoutMs} ms, Node ${process.version}`,
    '',
    table(
      ['sessions', 'raw msg/s', 'e2e entries/s', 'e2e/raw', 'seconds raw / e2e', 'Cosmos RT/entry (e2e)', 'splitter sends/ledger'],
      rows,
    ),
    '',
    `Cosmos round trips of the processor (${costs.entries} entries, 8 sessions, sent in order straight to orders):`,
    table(
      ['', 'per entry', 'processor / outbox', 'by kind (per entry)'],
      [
        ['applied entry', fixed(costs.fresh.total / costs.entries, 2), split(costs.fresh, costs.entries), byKind(costs.fresh, costs.entries)],
        ['duplicate, warm cache', fixed(costs.duplicatesWarm.total / costs.entries, 2), split(costs.duplicatesWarm, costs.entries), byKind(costs.duplicatesWarm, costs.entries)],
        ['duplicate, restarted host', fixed(costs.duplicatesCold.total / costs.entries, 2), split(costs.duplicatesCold, costs.entries), byKind(costs.duplicatesCold, costs.entries)],
      ],
      100,
    ),
    '',
    'raw: the host\'s session trigger on orders with a function that does nothing (auto-complete), same messages and sessions as e2e.',
    'e2e: ledgers to the ledger queue until every order\'s entries are applied (host log), then each order checked over HTTP.',
    'splitter sends: sendMessages calls on the app\'s orders sender, counted by wrapping it in the bench (one call per batch).',
    'processor / outbox: the processor reads and commits (read, batch); the outbox dispatcher claims and completes (replace) and,',
    'off its fast path, queries an order\'s open records (query, queryPlan). Counted when the last message is settled.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await stack.close();
}

function byKind(counts: CosmosCounts, per: number): string {
  return Object.entries(counts)
    .filter(([kind]) => kind !== 'total')
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, n]) => `${kind} ${fixed(n / per, 2)}`)
    .join(', ');
}

function split(counts: CosmosCounts, per: number): string {
  // Request kinds only the outbox dispatcher makes in these phases (timers are not running).
  const outboxKinds = new Set(['replace', 'query', 'queryPlan']);
  const outbox = Object.entries(counts).reduce((n, [kind, count]) => (outboxKinds.has(kind) ? n + count : n), 0);
  return `${fixed((counts.total - outbox) / per, 2)} / ${fixed(outbox / per, 2)}`;
}

function fixed(value: number, digits: number): string {
  return value.toFixed(digits);
}

function int(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`expected a positive integer, got "${text}"`);
  return n;
}
