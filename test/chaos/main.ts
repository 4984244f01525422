/*
 * `npm run chaos -- [--seed n] [--entries 10000] [--orders 200] [--duration 150s]`: the fault-injection run on the
 * embedded stack. Exits 1 on any invariant violation (the run directory with every process's log is then kept).
 */
import { Command, InvalidArgumentError } from 'commander';
import { parseIsoDuration } from '../../src/core/duration.js';
import { defaultChaosOptions, smallChaosOptions } from './chaosOptions.js';
import { formatReport } from './report.js';
import { runChaos } from './runChaos.js';

function integer(min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < min) throw new InvalidArgumentError(`must be an integer ≥ ${min}`);
    return n;
  };
}

/** `90s`, `2m`, `1500ms`, a plain number of seconds, or ISO 8601 (`PT2M`). */
function duration(value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
  const ms = match
    ? Number(match[1]) * ({ ms: 1, s: 1000, m: 60_000 }[match[2] ?? 's'] ?? 1000)
    : parseIsoDuration(value);
  if (ms === undefined || !(ms > 0)) throw new InvalidArgumentError('expected a duration such as 150s, 3m or PT3M');
  return Math.round(ms);
}

const defaults = defaultChaosOptions();
const program = new Command()
  .name('npm run chaos --')
  .description(
    'Fault-injection run: drive generated ledgers through the embedded stack under crashes, lost replies, throttling, lock loss, duplicates, competing hosts and a broker restart; check exactly-once, order and dead letters.',
  )
  .option('--seed <n>', 'seed of the data and of the fault plan', integer(0), defaults.seed)
  .option('--entries <n>', 'valid entries in total', integer(2), defaults.entries)
  .option('--orders <n>', 'orders', integer(1), defaults.orders)
  .option('--duration <time>', 'fault window (sends spread over its first 60 %)', duration, defaults.durationMs)
  .option(
    '--settle-timeout <time>',
    'how long to wait for the system to settle after the window',
    duration,
    defaults.settleTimeoutMs,
  )
  .option('--hosts <n>', 'competing function hosts', integer(1), defaults.hosts)
  .option('--small', "the suite's small run (its seed and sizes unless given)")
  .option('--keep', 'keep the run directory (logs, broker data) even when the run passes')
  .option('--quiet', 'no progress lines')
  .parse();

type Flags = {
  seed: number;
  entries: number;
  orders: number;
  duration: number;
  settleTimeout: number;
  hosts: number;
  small?: true;
  keep?: true;
  quiet?: true;
};
const flags = program.opts<Flags>();
// With --small, only the flags given on the command line override the small preset.
const given = (name: keyof Flags): boolean => program.getOptionValueSource(name) === 'cli';
const preset = flags.small ? smallChaosOptions() : defaults;
const pick = <K extends keyof Flags>(name: K, fallback: number): number =>
  !flags.small || given(name) ? (flags[name] as number) : fallback;
const orders = pick('orders', preset.orders);
const entries = pick('entries', preset.entries);
if (entries < orders * 2)
  program.error('--entries must be at least twice --orders (each order needs OrderCreated and more)');
const options = {
  ...preset,
  ...{
    seed: pick('seed', preset.seed),
    entries,
    orders,
    durationMs: pick('duration', preset.durationMs),
    settleTimeoutMs: pick('settleTimeout', preset.settleTimeoutMs),
    hosts: pick('hosts', preset.hosts),
    conflicts: Math.min(preset.conflicts, orders),
    gaps: Math.min(preset.gaps, orders),
    keep: flags.keep === true,
    verbose: flags.quiet !== true,
  },
};

const log = options.verbose ? (line: string) => process.stderr.write(`[chaos] ${line}\n`) : undefined;
let failed = false;
try {
  const report = await runChaos(options, log);
  process.stdout.write(`${formatReport(report)}\n`);
  failed = !report.ok;
} catch (error) {
  console.error('chaos run aborted:', error);
  failed = true;
}
process.exit(failed ? 1 : 0);
