import { badRequest } from '../errors/errorFactory.js';
import type { PartitionTransaction } from '../store/documentOps.js';
import type { MessageMap } from './messageMap.js';
import { OperationAbort } from './scriptRun.js';

/*
 * The JavaScript query API of the collection object: `filter`, `map`, `pluck`, `flatten`, `sortBy`,
 * `sortByDescending`, alone or chained (`chain()…value()`), over the partition's documents as the
 * script's transaction sees them. A call reports through its callback; without one its result becomes
 * the response body (and a script without a response, a pre-trigger, must pass a callback).
 */

type Callback = (error: unknown, result?: unknown, options?: unknown) => void;
type Step = (rows: unknown[]) => unknown[];

/** What the query API works on. */
export interface FluentScope {
  txn: PartitionTransaction;
  response: MessageMap | undefined;
  /** Queues `work` like any collection operation (false when the budget is spent). */
  accept: (callback: Callback | undefined, work: () => unknown) => boolean;
}

function fn(value: unknown, what: string): (...args: unknown[]) => unknown {
  if (typeof value !== 'function') throw new OperationAbort(badRequest(`The ${what} function must be provided.`));
  return value as (...args: unknown[]) => unknown;
}

const compare = (a: unknown, b: unknown): number => {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  return (a as number) < (b as number) ? -1 : 1;
};

const STEPS: Record<string, (arg: unknown) => Step> = {
  filter: (predicate) => {
    const test = fn(predicate, 'predicate');
    return (rows) => rows.filter((row) => Boolean(test(row)));
  },
  map: (transform) => {
    const apply = fn(transform, 'transform');
    return (rows) => rows.map((row) => apply(row));
  },
  pluck: (name) => {
    if (typeof name !== 'string' || name === '')
      throw new OperationAbort(badRequest('The property name must be a string and cannot be empty.'));
    return (rows) => rows.map((row) => (row as Record<string, unknown> | null)?.[name]);
  },
  flatten: (shallow) => (rows) =>
    rows.flatMap((row) => (Array.isArray(row) ? (shallow === true ? row : row.flat(Infinity)) : [row])),
  sortBy: (key) => {
    const select = fn(key, 'sort key');
    return (rows) => [...rows].sort((a, b) => compare(select(a), select(b)));
  },
  sortByDescending: (key) => {
    const select = fn(key, 'sort key');
    return (rows) => [...rows].sort((a, b) => compare(select(b), select(a)));
  },
};

/** The query API's methods, to merge into the collection object. */
export function fluentQueryApi(scope: FluentScope): Record<string, unknown> {
  const execute = (steps: Step[], options: unknown, callback: unknown): { isAccepted: boolean } => {
    const cb = (typeof options === 'function' ? options : callback) as Callback | undefined;
    const report: Callback =
      cb ??
      ((error, result) => {
        if (error !== undefined) throw error;
        if (scope.response === undefined)
          throw new OperationAbort(
            badRequest(
              'The callback function must be provided where there is no response object, such as in a pre-trigger.',
            ),
          );
        scope.response.api['setBody']?.(result);
      });
    const isAccepted = scope.accept(report, () =>
      steps.reduce((rows, step) => step(rows), scope.txn.documents().map((d) => structuredClone(d.body)) as unknown[]),
    );
    return { isAccepted };
  };
  const chain = (steps: Step[]): Record<string, unknown> => ({
    ...Object.fromEntries(
      Object.entries(STEPS).map(([name, make]) => [name, (arg: unknown) => chain([...steps, make(arg)])]),
    ),
    value: (options?: unknown, callback?: unknown) => execute(steps, options, callback),
  });
  return {
    chain: () => chain([]),
    ...Object.fromEntries(
      Object.entries(STEPS).map(([name, make]) => [
        name,
        (arg: unknown, options?: unknown, callback?: unknown) => execute([make(arg)], options, callback),
      ]),
    ),
  };
}
