import type { AccountStore } from '../store/accountStore.js';
import { ScriptRun } from './scriptRun.js';
import type { ScriptLimits } from './scriptRun.js';
import { udfsIn } from './serverContext.js';

type Udfs = Record<string, (...args: unknown[]) => unknown>;

/** A query that may call a UDF (`udf.<id>(…)`); a cheap test so queries without one pay nothing. */
const CALLS_UDF = /\budf\s*\./i;

/**
 * Runs `query` with the container's user-defined functions when its text calls one: compiled into one
 * script context, with the whole query under the script time budget (a UDF that loops fails the query with
 * 408). Queries that call none run as they are.
 */
export function withUdfs<T>(
  store: AccountStore,
  container: { db: string; coll: string },
  limits: ScriptLimits,
  text: string,
  query: (udf: Udfs | undefined) => T,
): T {
  if (!CALLS_UDF.test(text)) return query(undefined);
  const run = new ScriptRun(limits, false);
  const udf = udfsIn(run, store, container);
  return run.within(() => query(udf), 'the user-defined functions of a query');
}
