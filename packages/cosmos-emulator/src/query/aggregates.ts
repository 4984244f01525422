import { createRequire } from 'node:module';
import { canonicalKey } from './ordering.js';

/*
 * Aggregate functions for queries the pipeline runs (GROUP BY, and aggregates the query library lacks), with the
 * library's own COUNT/SUM/AVG/MIN/MAX so both paths agree on types and undefined. Across partition key ranges each
 * range answers a partial result that the SDK's aggregators (`queryExecutionContext/Aggregators` in `@azure/cosmos`)
 * merge: MIN/MAX as `{ min|max, count }`, AVG as `{ sum, count }`, lists as lists.
 */

/** Aggregates the emulator evaluates, by their SQL name, with the name the query plan gives their merge. */
export const AGGREGATE_TYPES = {
  COUNT: 'Count',
  SUM: 'Sum',
  MIN: 'Min',
  MAX: 'Max',
  AVG: 'Average',
  MAKELIST: 'MakeList',
  MAKESET: 'MakeSet',
  COUNTIF: 'CountIf',
} as const;

/** Upper-case aggregate name. */
export type AggregateFunction = keyof typeof AGGREGATE_TYPES;

type LibraryAggregate = (values: unknown[]) => unknown;
const library = createRequire(import.meta.url)('@zeit/cosmosdb-query/lib/aggregate-functions') as Record<
  'COUNT' | 'SUM' | 'AVG' | 'MIN' | 'MAX',
  LibraryAggregate
>;

/** True for a function name (any case) that is an aggregate. */
export function isAggregateName(name: string): name is AggregateFunction {
  return Object.prototype.hasOwnProperty.call(AGGREGATE_TYPES, name.toUpperCase());
}

function makeSet(values: unknown[]): unknown[] {
  const seen = new Map<string, unknown>();
  for (const value of values)
    if (value !== undefined && !seen.has(canonicalKey(value))) seen.set(canonicalKey(value), value);
  return [...seen.values()];
}

/** The aggregate of `values` (one per row; undefined where the argument was undefined). */
export function aggregate(fn: AggregateFunction, values: unknown[]): unknown {
  switch (fn) {
    case 'MAKELIST':
      return values.filter((v) => v !== undefined);
    case 'MAKESET':
      return makeSet(values);
    case 'COUNTIF':
      return values.filter((v) => v === true).length;
    default:
      return library[fn](values);
  }
}

/** One range's partial result of `fn`, in the shape the SDK's aggregator for it merges. */
export function partialAggregate(fn: AggregateFunction, values: unknown[]): unknown {
  switch (fn) {
    case 'MIN':
    case 'MAX': {
      const count = library.COUNT(values);
      return count === 0 ? { count } : { [fn.toLowerCase()]: library[fn](values), count };
    }
    case 'AVG':
      return { sum: library.SUM(values), count: library.COUNT(values) };
    default:
      return aggregate(fn, values);
  }
}
