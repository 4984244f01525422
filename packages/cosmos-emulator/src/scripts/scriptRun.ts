import { performance } from 'node:perf_hooks';
import { format } from 'node:util';
import { createContext, Script } from 'node:vm';
import type { Context } from 'node:vm';
import { isCosmosError } from '../errors/cosmosError.js';
import type { CosmosError } from '../errors/cosmosError.js';
import { badRequest, requestTimeout } from '../errors/errorFactory.js';

/*
 * One execution of server-side JavaScript (a stored procedure, a trigger, the UDFs of a query) in its own
 * `node:vm` context, with a time budget. This keeps a developer's script from seeing the emulator's globals
 * and stops runaway loops; it is NOT a security boundary (code in a vm context can reach the host through
 * the objects it is handed), which is fine for the developer's own code on their own machine.
 */

/** Limits for server-side JavaScript. */
export interface ScriptLimits {
  /** Wall-clock budget of one execution (the script, its callbacks and triggers), in ms; past it the request fails with 408 and nothing is written. @default 5000 */
  timeoutMs: number;
  /** Collection operations one execution may issue; further calls return false (not accepted), as near the service's budget. @default 1000 */
  operationBudget: number;
}

/** Defaults of {@link ScriptLimits}. */
export const DEFAULT_SCRIPT_LIMITS: ScriptLimits = { timeoutMs: 5000, operationBudget: 1000 };

/** Thrown through the script when a collection operation without a callback fails: the execution ends with that error. */
export class OperationAbort {
  constructor(readonly error: CosmosError) {}
}

/** Share of the time budget after which collection operations are no longer accepted. */
const ACCEPT_WINDOW = 0.8;

const drainScript = new Script('__drain()');
const entryScript = new Script('__entry()');

/** A value as JSON would carry it (another realm's objects become this realm's; functions and undefined drop). */
export function plain<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value) ?? 'null') as T);
}

/** Turns a compiled body into a function: `function f(){}`, an arrow function, or a method (`name() {}`). */
function compileBody(body: string, context: Context): unknown {
  try {
    return new Script(`(${body}\n)`).runInContext(context, { timeout: 1000 });
  } catch {
    // A body written as a method (`name() { ... }`), as `Function.prototype.toString` gives for one.
    const holder = new Script(`({${body}\n})`).runInContext(context, { timeout: 1000 }) as Record<string, unknown>;
    return Object.values(holder)[0];
  }
}

/** Runs one execution's code under its limits and collects what it logs. */
export class ScriptRun {
  private readonly jobs: (() => void)[] = [];
  private readonly startedAt = performance.now();
  private operations = 0;
  /** Lines written with `console.log` when logging is on. */
  readonly logs: string[] = [];
  readonly context: Context;

  constructor(
    readonly limits: ScriptLimits,
    logging: boolean,
  ) {
    const log = (...args: unknown[]): void => {
      if (logging) this.logs.push(format(...args));
    };
    this.context = createContext(
      { console: { log }, __drain: () => this.drain() },
      { name: 'cosmos-server-script', codeGeneration: { strings: true, wasm: false }, microtaskMode: 'afterEvaluate' },
    );
  }

  /** Sets a global of the script's context (`getContext`, `__`, `ErrorCodes`). */
  define(name: string, value: unknown): void {
    (this.context as Record<string, unknown>)[name] = value;
  }

  /** True when one more collection operation may run; false once the budget is spent (the script should return). */
  accept(): boolean {
    if (
      this.operations >= this.limits.operationBudget ||
      performance.now() - this.startedAt > this.limits.timeoutMs * ACCEPT_WINDOW
    )
      return false;
    this.operations += 1;
    return true;
  }

  /** Queues a callback; it runs after the current code returns, in order, within the same execution. */
  enqueue(job: () => void): void {
    this.jobs.push(job);
  }

  /** Compiles a script body into a function of this context. @throws 400 when it is not a function. */
  compile(body: unknown, what: string): (...args: unknown[]) => unknown {
    if (typeof body !== 'string')
      throw badRequest(`The body of ${what} must be a string holding a JavaScript function.`);
    let fn: unknown;
    try {
      fn = compileBody(body, this.context);
    } catch (error) {
      throw badRequest(`The body of ${what} is not valid JavaScript: ${describe(error)}`);
    }
    if (typeof fn !== 'function') throw badRequest(`The body of ${what} does not define a function.`);
    return fn as (...args: unknown[]) => unknown;
  }

  /**
   * Calls `fn` with `args`, then every queued callback, all within the time budget.
   * @throws CosmosError 408 past the budget, the operation's error for an {@link OperationAbort}, else 400
   * naming what the script threw.
   */
  invoke(fn: (...args: unknown[]) => unknown, args: unknown[], what: string): void {
    this.within(() => {
      fn(...args);
      this.drain();
    }, what);
  }

  /**
   * Runs `work` (emulator code that calls into the script, such as a query calling UDFs) within the time
   * budget, then any callbacks it queued. Errors of the emulator's own pass through unchanged.
   * @throws as {@link ScriptRun.invoke}.
   */
  within<T>(work: () => T, what: string): T {
    let result: T | undefined;
    this.define('__entry', () => {
      result = work();
    });
    try {
      entryScript.runInContext(this.context, { timeout: this.remaining() });
      while (this.jobs.length > 0) drainScript.runInContext(this.context, { timeout: this.remaining() });
    } catch (error) {
      if (error instanceof OperationAbort) throw error.error;
      if (isCosmosError(error)) throw error;
      if ((error as { code?: unknown } | null)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
        throw requestTimeout(`${what} did not complete within ${this.limits.timeoutMs} ms; nothing it wrote was kept.`);
      }
      throw badRequest(`Encountered exception while executing ${what}. Exception = ${describe(error)}`);
    }
    return result as T;
  }

  private drain(): void {
    for (let job = this.jobs.shift(); job !== undefined; job = this.jobs.shift()) job();
  }

  private remaining(): number {
    return Math.max(1, Math.ceil(this.limits.timeoutMs - (performance.now() - this.startedAt)));
  }
}

/** What a script threw, as text (errors from the script's realm are not `instanceof Error` here). */
export function describe(thrown: unknown): string {
  if (thrown !== null && typeof thrown === 'object' && 'message' in thrown) {
    const { name, message } = thrown as { name?: unknown; message?: unknown };
    return `${typeof name === 'string' ? name : 'Error'}: ${String(message)}`;
  }
  return String(thrown);
}
