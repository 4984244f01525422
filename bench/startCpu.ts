/**
 * CPU per applied entry through `npm start` (`npm run bench:start-cpu [-- --orders 200 --entries 10 --ledgers 20
 * --runs 3]`): starts the local host as `npm start` does (its bin, ports of its own), sends one generated workload
 * with `convoy send` (no duplicates, conflicts, poison or gaps: every entry is applied once) and reads the host
 * process's CPU from the first send until the `ledger` and `orders` queues are empty and every event is on
 * `order-events` subscription `all` (the emulator's admin `/stats`, answered on the emulator's thread); `convoy
 * verify` then checks the orders, outside the timed part. Linux only: the main thread's CPU is
 * /proc/<pid>/task/<pid>/stat, the process's /proc/<pid>/stat.
 */
import { spawn, execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { COSMOS_EMULATOR_KEY, SERVICE_BUS_EMULATOR_KEY } from '@ledger-convoy/cli/emulatorKeys';
import { benchArgs, wholeArg } from './support/benchArgs.js';
import { npmStartPorts } from './support/npmStartPorts.js';
import { median } from './support/report.js';

const USAGE = [
  'Usage: npm run bench:start-cpu [-- options]',
  '  --orders N    orders per run (default 200)',
  '  --entries N   entries per order (default 10)',
  '  --ledgers N   ledgers they are spread over, interleaved (default 20)',
  '  --runs N      runs, each on a fresh npm start (default 3)',
].join('\n');
const values = benchArgs(USAGE, {
  orders: { type: 'string', default: '200' },
  entries: { type: 'string', default: '10' },
  ledgers: { type: 'string', default: '20' },
  runs: { type: 'string', default: '3' },
});
const size = {
  orders: wholeArg(USAGE, values.orders, 1, 'orders'),
  entries: wholeArg(USAGE, values.entries, 1, 'entries'),
  ledgers: wholeArg(USAGE, values.ledgers, 1, 'ledgers'),
};
const runs = wholeArg(USAGE, values.runs, 1, 'runs');
const root = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);
/** USER_HZ, the unit of /proc's CPU times: 100 on every Linux architecture Node runs on. */
const TICKS_PER_SECOND = 100;

interface RunResult {
  mainMs: number;
  processMs: number;
  seconds: number;
  load: string;
}

/** One fresh host, a warm-up of one order per session slot, then the measured workload. */
async function oneRun(index: number): Promise<RunResult> {
  const { base, args } = npmStartPorts();
  const host = spawn(process.execPath, ['packages/local-host/bin/local-host.mjs', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      if (output.length < 100_000) output += chunk.toString();
      if (output.includes('Ctrl-C')) resolve();
    };
    host.stdout.on('data', onData);
    host.stderr.on('data', onData);
    host.on('exit', (code) => reject(new Error(`the host exited (${code}) before it was ready:\n${output}`)));
  });
  const pid = host.pid as number;
  const env = {
    ...process.env,
    ServiceBusConnection: `Endpoint=sb://127.0.0.1:${base + 1};SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${SERVICE_BUS_EMULATOR_KEY};UseDevelopmentEmulator=true;`,
    CosmosConnection: `AccountEndpoint=http://127.0.0.1:${base + 2}/;AccountKey=${COSMOS_EMULATOR_KEY};`,
    CONVOY_HTTP: `http://127.0.0.1:${base}`,
  };
  const convoy = (...a: string[]) => run(process.execPath, ['node_modules/.bin/convoy', ...a], { cwd: root, env });
  const clean = ['--duplicates', '0', '--conflicts', '0', '--poison', '0', '--gaps', '0', '--quiet'];
  const file = (tag: string) => join(tmpdir(), `convoy-start-cpu-${process.pid}-${index}-${tag}.json`);
  try {
    await convoy('send', '--orders', '8', '--entries', '2', '--ledgers', '2', ...clean, '--out', file('warm'));
    await convoy('verify', '--quiet', '--file', file('warm'));
    const eventsBefore = (await entity(base, /^order-events\/Subscriptions\/all$/i)).active;
    const entries = size.orders * size.entries;
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const before = { main: cpuMs(`/proc/${pid}/task/${pid}/stat`), all: cpuMs(`/proc/${pid}/stat`) };
    const started = performance.now();
    const sizeArgs = ['--orders', `${size.orders}`, '--entries', `${size.entries}`, '--ledgers', `${size.ledgers}`];
    await convoy('send', ...sizeArgs, ...clean, '--out', file('run'));
    await drained(base, eventsBefore + entries);
    const result = {
      mainMs: cpuMs(`/proc/${pid}/task/${pid}/stat`) - before.main,
      processMs: cpuMs(`/proc/${pid}/stat`) - before.all,
      seconds: (performance.now() - started) / 1000,
      load,
    };
    await convoy('verify', '--quiet', '--file', file('run'));
    return result;
  } finally {
    host.kill('SIGINT');
    await new Promise((resolve) => host.on('exit', resolve));
  }
}

/** utime + stime of a /proc stat file, in ms (fields 14 and 15 of proc(5), counted after the command's ")"). */
function cpuMs(path: string): number {
  const stat = readFileSync(path, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/** One entity of the Service Bus emulator's admin `/stats`. */
async function entity(base: number, name: RegExp): Promise<{ active: number; locked: number }> {
  const response = await fetch(`http://127.0.0.1:${base + 3}/stats`);
  const { entities } = (await response.json()) as { entities: { name: string; active: number; locked: number }[] };
  const found = entities.find((e) => name.test(e.name));
  if (!found) throw new Error(`no entity ${name} in the emulator's /stats`);
  return found;
}

/** Until `ledger` and `orders` hold nothing and subscription `all` holds `events`. */
async function drained(base: number, events: number): Promise<void> {
  for (;;) {
    const [ledger, orders, all] = await Promise.all([
      entity(base, /^ledger$/),
      entity(base, /^orders$/),
      entity(base, /^order-events\/Subscriptions\/all$/i),
    ]);
    if (ledger.active + ledger.locked + orders.active + orders.locked === 0 && all.active >= events) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const entries = size.orders * size.entries;
console.log(
  `CPU per applied entry through npm start: ${size.orders} orders × ${size.entries} entries in ${size.ledgers} ` +
    `ledgers (${entries} entries), ${runs} run(s), host.json as committed`,
);
const results: RunResult[] = [];
for (let i = 1; i <= runs; i++) {
  const r = await oneRun(i);
  results.push(r);
  console.log(
    `run ${i}: main thread ${(r.mainMs / entries).toFixed(3)} ms/entry, process ${(r.processMs / entries).toFixed(3)} ` +
      `ms/entry, ${(entries / r.seconds).toFixed(1)} entries/s, load ${r.load}`,
  );
}
console.log(
  `median: main thread ${median(results.map((r) => r.mainMs / entries)).toFixed(3)} ms/entry, process ` +
    `${median(results.map((r) => r.processMs / entries)).toFixed(3)} ms/entry`,
);
