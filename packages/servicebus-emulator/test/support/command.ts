import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The package's own command, as a user runs it. */
const COMMAND = fileURLToPath(new URL('../../bin/servicebus-emulator.mjs', import.meta.url));

/** A running `servicebus-emulator` process. */
export interface EmulatorProcess {
  readonly connectionString: string;
  /** SIGKILL: no cleanup, no flush — a real crash. */
  kill9(): Promise<void>;
}

/**
 * Runs `servicebus-emulator` with `args`, every output line appended to `logFile`, and resolves once it prints its
 * listening line (or rejects when it exits first).
 */
export async function runCommand(args: readonly string[], logFile: string): Promise<EmulatorProcess> {
  const child = spawn(process.execPath, [COMMAND, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = once(child, 'exit');
  createInterface({ input: child.stderr }).on('line', (line) => appendFileSync(logFile, `${line}\n`));
  const ready = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      appendFileSync(logFile, `${line}\n`);
      if (!line.startsWith('{')) return;
      const value = JSON.parse(line) as { status?: string; connectionString?: string };
      if (value.status === 'listening') resolve(String(value.connectionString));
    });
    void exited.then(([code]) =>
      reject(new Error(`servicebus-emulator exited (${String(code)}) before listening; see ${logFile}`)),
    );
  });
  const connectionString = await ready;
  return {
    connectionString,
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
