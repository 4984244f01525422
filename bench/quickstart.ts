/**
 * Quick-start benchmark (`npm run bench:quickstart [-- --runs 3]`).
 *
 * Times the README's quick start as a new user meets it: starts `npm start`, then runs the `npx convoy …` commands
 * of the README's "In a second terminal" block, read from README.md itself so the figure is of what the README
 * says, from the first command starting to the last exiting 0. The goal is under 5 s; the ratio is printed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { COSMOS_EMULATOR_KEY, SERVICE_BUS_EMULATOR_KEY } from '@ledger-convoy/cli/emulatorKeys';
import { benchArgs, wholeArg } from './support/benchArgs.js';
import { npmStartPorts } from './support/npmStartPorts.js';

const GOAL_S = 5;
const root = fileURLToPath(new URL('..', import.meta.url));
const USAGE = 'Usage: npm run bench:quickstart [-- --runs N]   (default 3)';
const values = benchArgs(USAGE, { runs: { type: 'string', default: '3' } });
const runs = wholeArg(USAGE, values.runs, 1, 'runs');

/** The commands of the README's quick start: the bash block after "In a second terminal". */
function quickStartCommands(readme: string): string[] {
  const block = /In a second terminal[^\n]*\n+```bash\n([\s\S]*?)```/.exec(readme)?.[1];
  const commands = (block ?? '')
    .split('\n')
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter(Boolean);
  if (commands.length === 0) throw new Error('README.md has no bash block after "In a second terminal"');
  return commands;
}

// Ports of our own, never the defaults (other stacks on this machine may hold them); the commands get them through
// the settings the CLI reads from the environment, as a user with another port would set them.
const { base, args: PORTS } = npmStartPorts();
const commandEnv = {
  ...process.env,
  ServiceBusConnection: `Endpoint=sb://127.0.0.1:${base + 1};SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${SERVICE_BUS_EMULATOR_KEY};UseDevelopmentEmulator=true;`,
  CosmosConnection: `AccountEndpoint=http://127.0.0.1:${base + 2}/;AccountKey=${COSMOS_EMULATOR_KEY};`,
  CONVOY_HTTP: `http://127.0.0.1:${base}`,
  CONVOY_ADMIN: `http://127.0.0.1:${base + 3}/stats`,
};

/** `npm start` in its own process group, resolved once its banner says it is ready. */
async function startStack(): Promise<ChildProcess> {
  const child = spawn('npm', ['start', '--', ...PORTS], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes('Ctrl-C')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`npm start exited (${code}) before it was ready:\n${output}`)));
  });
  return child;
}

/** Runs one shell command from the repository root; resolves with its duration in seconds, rejects unless it exits 0. */
async function timed(command: string): Promise<number> {
  const started = performance.now();
  const child = spawn('sh', ['-c', command], { cwd: root, env: commandEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`\`${command}\` exited ${code}:\n${output}`);
  return (performance.now() - started) / 1000;
}

const commands = quickStartCommands(readFileSync(new URL('../README.md', import.meta.url), 'utf8'));
console.log(
  `quick start from README.md, ${runs} run(s), against \`npm start\` on ports ${base}–${base + 3} (host.json as committed):`,
);
for (const command of commands) console.log(`  ${command}`);
const stack = await startStack();
try {
  const totals: number[] = [];
  for (let run = 1; run <= runs; run++) {
    const each: number[] = [];
    for (const command of commands) each.push(await timed(command));
    const total = each.reduce((a, b) => a + b, 0);
    totals.push(total);
    console.log(
      `run ${run}: ${each.map((s, i) => `${commandName(commands[i] ?? '')} ${s.toFixed(2)} s`).join(' + ')} = ${total.toFixed(2)} s`,
    );
  }
  const median = [...totals].sort((a, b) => a - b)[Math.floor(totals.length / 2)] ?? Number.NaN;
  console.log(`median ${median.toFixed(2)} s; goal < ${GOAL_S} s (median ÷ goal ${(median / GOAL_S).toFixed(2)})`);
} finally {
  // Ctrl-C as a terminal sends it: to the whole process group, so npm start drains and stops.
  if (stack.pid !== undefined) process.kill(-stack.pid, 'SIGINT');
  await new Promise((resolve) => stack.on('exit', resolve));
}

function commandName(command: string): string {
  return command.split(/\s+/).slice(0, 3).join(' ');
}
