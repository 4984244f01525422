/**
 * Start-up benchmark (`npm run bench:startup [-- --runs 5]`).
 *
 * Times `npm start` as a developer meets it, from the command starting until a ledger POSTed the moment HTTP answers
 * is applied (its order readable with `lastSequence` 1): HTTP answering, both emulators accepting, the session
 * receivers started, the relay's leases owned. Each round runs twice, interleaved: once after an edit (a source
 * file touched, so the host's bundle is rebuilt inside the timed span: TypeScript compilation included) and once
 * with nothing changed. It prints where the time went (npm until node runs, then the launcher's and the host's own
 * phases as the host logs them once ready), the CPU the process tree used, and the load average, since the figure
 * depends on what else runs.
 * The goal is 2 s; nothing is asserted.
 */
import { spawn } from 'node:child_process';
import { readFileSync, utimesSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { benchArgs, wholeArg } from './support/benchArgs.js';
import { npmStartPorts } from './support/npmStartPorts.js';

const GOAL_S = 2;
const root = fileURLToPath(new URL('..', import.meta.url));
const USAGE = 'Usage: npm run bench:startup [-- --runs N]   (default 5)';
const values = benchArgs(USAGE, { runs: { type: 'string', default: '5' } });
const runs = wholeArg(USAGE, values.runs, 1, 'runs');

interface StartupRun {
  appliedMs: number;
  httpMs: number;
  processStartMs: number;
  buildMs: number | undefined;
  phases: { phase: string; atMs: number }[];
  cpuMs: number | undefined;
  load: number;
}

/** CPU time (user + system) of a process and its descendants, from /proc; undefined elsewhere. */
function treeCpuMs(pid: number): number | undefined {
  const ticksPerMs = 100 / 1000;
  let total = 0;
  const pending = [pid];
  try {
    while (pending.length > 0) {
      const p = pending.pop()!;
      const fields = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / ticksPerMs;
      for (const task of readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim().split(/\s+/).filter(Boolean))
        pending.push(Number(task));
    }
  } catch {
    return pending.length === 0 && total > 0 ? total : undefined;
  }
  return total;
}

async function once(edited: boolean): Promise<StartupRun> {
  const { base, args: ports } = npmStartPorts();
  if (edited) {
    const now = new Date();
    utimesSync(`${root}packages/local-host/src/main.ts`, now, now);
  }
  const spawnedAt = Date.now();
  const started = performance.now();
  const child = spawn('npm', ['start', '--', ...ports, '--json'], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  let exited = false;
  child.on('exit', () => void (exited = true));
  const api = `http://127.0.0.1:${base}/api`;
  const orderId = `startup-${spawnedAt}`;
  const ledger = JSON.stringify({
    ledgerId: `L-${orderId}`,
    entries: [
      {
        entryId: `${orderId}-e1`,
        orderId,
        sequence: 1,
        type: 'OrderCreated',
        data: { customerId: 'c-1', currency: 'EUR' },
      },
    ],
  });
  try {
    let httpMs: number | undefined;
    while (httpMs === undefined) {
      if (exited) throw new Error(`npm start exited before it answered:\n${stderr}`);
      const answer = await fetch(`${api}/ledgers`, { method: 'POST', body: ledger }).catch(() => undefined);
      if (answer?.status === 202) httpMs = performance.now() - started;
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    let appliedMs: number | undefined;
    while (appliedMs === undefined) {
      const answer = await fetch(`${api}/orders/${orderId}`).catch(() => undefined);
      if (answer?.ok && ((await answer.json()) as { lastSequence: number }).lastSequence === 1)
        appliedMs = performance.now() - started;
      else await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const cpuMs = treeCpuMs(child.pid!);
    while (!stdout.includes('"startup"')) await new Promise((resolve) => setTimeout(resolve, 20));
    const ready = stdout
      .split('\n')
      .map((l) =>
        l.includes('"startup"')
          ? (JSON.parse(l) as { startup: StartupRun['phases']; buildMs?: number; processStartedAt: number })
          : undefined,
      )
      .find(Boolean)!;
    return {
      appliedMs,
      httpMs,
      processStartMs: ready.processStartedAt - spawnedAt,
      buildMs: ready.buildMs,
      phases: ready.startup,
      cpuMs,
      load: loadavg()[0]!,
    };
  } finally {
    // Ctrl-C as a terminal sends it: to the whole process group, so npm start drains and stops.
    if (!exited) process.kill(-child.pid!, 'SIGINT');
    await new Promise((resolve) => (exited ? resolve(undefined) : child.on('exit', resolve)));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const s = (ms: number) => (ms / 1000).toFixed(2);
console.log(
  `npm start, ${runs} round(s) of two interleaved starts (after an edit, unchanged); 2 cores here, load average now ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
const results: Record<'edited' | 'unchanged', StartupRun[]> = { edited: [], unchanged: [] };
for (let round = 1; round <= runs; round++) {
  for (const kind of ['edited', 'unchanged'] as const) {
    const r = await once(kind === 'edited');
    results[kind].push(r);
    const phases = r.phases.map((p) => `${p.phase} ${s(r.processStartMs + p.atMs)}`).join(' · ');
    console.log(
      `round ${round} ${kind.padEnd(9)} applied ${s(r.appliedMs)} s (HTTP ${s(r.httpMs)} s) · cpu ${r.cpuMs === undefined ? '?' : s(r.cpuMs)} s · load ${r.load.toFixed(1)}\n` +
        `  npm ${s(r.processStartMs)} · ${phases}${r.buildMs === undefined ? '' : ` (a rebuild of ${s(r.buildMs)} s before the bundles were current)`}`,
    );
  }
}
for (const kind of ['edited', 'unchanged'] as const) {
  const xs = results[kind];
  console.log(
    `${kind}: median applied ${s(median(xs.map((r) => r.appliedMs)))} s (range ${s(Math.min(...xs.map((r) => r.appliedMs)))}–${s(Math.max(...xs.map((r) => r.appliedMs)))}), median cpu ${s(median(xs.map((r) => r.cpuMs ?? Number.NaN)))} s; goal ≤ ${GOAL_S} s`,
  );
}
