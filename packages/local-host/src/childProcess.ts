/**
 * Child processes of the repository's own scripts (`node --import tsx <script>`), waited for until they print
 * their ready line: how the chaos run, the tests and the benches start emulators and hosts they can kill.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoPath } from './paths.js';

/** Options of {@link startChild}. */
interface ChildOptions {
  /** Repository-relative TypeScript entry point, or the absolute path of a package's command (run as it is). */
  script: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** Every output line is appended here (for diagnosis after a failed run). */
  logFile: string;
  /** Called for each stdout line that is a JSON object. */
  onJson?: (value: Record<string, unknown>) => void;
  /** Resolves `ready` with the first JSON line this accepts. */
  isReady: (value: Record<string, unknown>) => boolean;
  /** @default 60000 */
  readyTimeoutMs?: number;
}

/** A running child process of the run. */
export interface Child {
  readonly pid: number;
  readonly process: ChildProcess;
  /** Resolves with the exit code or signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL: no cleanup, no flush — a real crash. */
  kill9(): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

// Children still running when this process exits (a test timeout, an abort) are killed with it.
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const proc of live) proc.kill('SIGKILL');
});

/**
 * Starts `node --import tsx <script>` directly (not through the `tsx` CLI, whose wrapper process would leave the
 * real one running when killed) and waits for its ready line.
 * @internal
 */
export async function startChild(options: ChildOptions): Promise<{ child: Child; ready: Record<string, unknown> }> {
  const command = isAbsolute(options.script) ? [options.script] : ['--import', 'tsx', repoPath(options.script)];
  const proc = spawn(process.execPath, [...command, ...(options.args ?? [])], {
    cwd: repoPath('.'),
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: WriteStream = createWriteStream(options.logFile, { flags: 'a' });
  live.add(proc);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.once('exit', (code, signal) => {
      live.delete(proc);
      resolve({ code, signal });
    });
  });
  // The log closes once both pipes are drained.
  let open = 2;
  const closeLog = (): void => {
    if (--open === 0) log.end();
  };
  proc.stderr?.on('data', (chunk: Buffer) => log.write(chunk));
  proc.stderr?.once('close', closeLog);

  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new Error(
            `${options.script} not ready within ${options.readyTimeoutMs ?? 60_000} ms (see ${options.logFile})`,
          ),
        ),
      options.readyTimeoutMs ?? 60_000,
    );
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`${options.script} exited before it was ready (${signal ?? code}); see ${options.logFile}`));
    });
    const lines = createInterface({ input: proc.stdout! });
    lines.on('line', (line) => {
      log.write(`${line}\n`);
      const value = parseObject(line);
      if (value === undefined) return;
      options.onJson?.(value);
      if (options.isReady(value)) {
        clearTimeout(timer);
        resolve(value);
      }
    });
    lines.once('close', closeLog);
  });

  const child: Child = {
    pid: proc.pid as number,
    process: proc,
    exited,
    async kill9() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await exited;
    },
    async stop(graceMs = 5_000) {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  try {
    return { child, ready: await ready };
  } catch (error) {
    await child.kill9();
    throw error;
  }
}

function parseObject(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value = JSON.parse(line) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts the Service Bus emulator's command (`servicebus-emulator`) with `args` as a child process (its output appended to `logFile`) and
 * resolves once it prints its listening line. The one way the tests, the chaos run and the benchmark spawn it.
 */
export async function launchServiceBusEmulator(
  args: readonly string[],
  logFile: string,
): Promise<{ child: Child; connectionString: string }> {
  const { child, ready } = await startChild({
    script: fileURLToPath(import.meta.resolve('@ledger-convoy/servicebus-emulator/command')),
    args: [...args],
    logFile,
    isReady: (line) => line.status === 'listening',
  });
  return { child, connectionString: String(ready.connectionString) };
}
