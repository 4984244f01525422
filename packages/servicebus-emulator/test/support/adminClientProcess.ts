import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/** What the child reports for a failed call: the SDK's error code and HTTP status. */
export interface AdminCallError {
  code?: string;
  statusCode?: number;
  message?: string;
}

/** Thrown by {@link AdminClientProcess.call} when the administration client threw. */
export class AdminCallFailed extends Error {
  constructor(readonly error: AdminCallError) {
    super(`${error.code} (${error.statusCode}): ${error.message}`);
  }
}

const CHILD = fileURLToPath(new URL('./adminClientChild.ts', import.meta.url));

/**
 * The JS administration client in its own Node process: `NODE_EXTRA_CA_CERTS` is read only when Node starts,
 * so trusting the emulator's self-signed certificate the way a user does needs a process of its own. Values
 * come back as JSON (dates as ISO strings).
 */
export class AdminClientProcess {
  private next = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  private stderr = '';

  constructor(connectionString: string, caFile: string) {
    this.child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
      env: { ...process.env, ADMIN_CONNECTION_STRING: connectionString, NODE_EXTRA_CA_CERTS: caFile },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const reply = JSON.parse(line) as { id: number; ok: boolean; value?: unknown; error?: AdminCallError };
      const p = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (reply.ok) p?.resolve(reply.value);
      else p?.reject(new AdminCallFailed(reply.error ?? {}));
    });
    this.child.on('exit', (code) => {
      for (const p of this.pending.values())
        p.reject(new Error(`administration client process exited (${code}): ${this.stderr}`));
      this.pending.clear();
    });
  }

  /** Calls `ServiceBusAdministrationClient[method](...args)` in the child. */
  call<T = Record<string, unknown>>(method: string, ...args: unknown[]): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.child.stdin.write(`${JSON.stringify({ id, method, args })}\n`);
    });
  }

  /** The error a call fails with (fails the test when it succeeds). */
  async failure(method: string, ...args: unknown[]): Promise<AdminCallError> {
    try {
      await this.call(method, ...args);
    } catch (err) {
      if (err instanceof AdminCallFailed) return err.error;
      throw err;
    }
    throw new Error(`${method} succeeded, expected it to fail`);
  }

  /** Ends the child process. */
  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    await exited;
  }
}
