import { badRequest } from '../errors/errorFactory.js';
import { aggregate, partialAggregate } from './aggregates.js';
import type { AggregateFunction } from './aggregates.js';
import { argumentsOf, callName } from './astTools.js';
import type { Count } from './clauses.js';
import type { AstNode } from './cosmosdbQuery.js';
import { rankRows } from './hybridSearch.js';
import { canonicalKey, compareValues, distinct } from './ordering.js';
import { ridOrderKey } from './ridOrder.js';
import type { PipelineQuery } from './pipelineQuery.js';
import type { SearchContext } from './searchFunctions.js';

/*
 * Runs a compiled pipeline query (see `pipelineQuery.ts`) over a set of documents, in one of two modes:
 *
 * - whole: the query's own result, as a single partition answers it;
 * - partial: one partition key range's share in the shape the SDK's cross-partition pipeline merges after the
 *   query plan's `rewrittenQuery` — ORDER BY rows as `{ _rid, orderByItems, payload }`, groups as
 *   `{ groupByItems, payload }` with aggregates as `{ item: <partial> }`, a VALUE aggregate as `[{ item }]`,
 *   DISTINCT within the range, and TOP or OFFSET+LIMIT as a cap the SDK narrows (`pipelinedQueryExecutionContext.js`
 *   and `EndpointComponent/` in `@azure/cosmos`).
 */

type Parameters = { name: string; value: unknown }[];

/** One row of the rows query: projection `p`, `_rid` `r`, ORDER BY values `o<i>`, GROUP BY `g<i>`, aggregate arguments `a<i>`. */
type Row = Record<string, unknown>;

/** How a pipeline query runs. */
interface PipelineRun {
  parameters: Parameters | undefined;
  partial: boolean;
  /** The hidden argument of each search call (see `searchFunctions.ts`). */
  contexts: SearchContext[];
  /** ORDER BY RANK, partial: the component whose best rows this range answers (see `hybridSearch.ts`). */
  component?: number | undefined;
  /** User-defined functions the query may call as `udf.<id>(...)`. */
  udf?: Record<string, (...args: unknown[]) => unknown> | undefined;
}

function resolve(count: Count | undefined, parameters: Parameters, clause: string): number | undefined {
  if (count === undefined) return undefined;
  const value = 'value' in count ? count.value : parameters.find((p) => p.name === count.parameter)?.value;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    throw badRequest(`The ${clause} value must be a non-negative integer.`);
  return value;
}

const SIMILARITIES = new Set(['cosine', 'dotproduct']);

/**
 * True when an ORDER BY item sorts descending: as written, else for VectorDistance by its distance function
 * (most similar first: similarity descending, euclidean distance ascending) and for FullTextScore by score.
 */
export function descending(expression: AstNode, order: 'ASC' | 'DESC' | null, contexts: SearchContext[]): boolean {
  if (order !== null) return order === 'DESC';
  const fn = callName(expression);
  if (fn === 'FULLTEXTSCORE') return true;
  if (fn !== 'VECTORDISTANCE') return false;
  const args = argumentsOf(expression);
  const options =
    args[3]?.type === 'object_constant' ? (args[3]['properties'] as { key: AstNode; value: AstNode }[]) : [];
  const written = options.find((p) => p.key['name'] === 'distanceFunction' || p.key['value'] === 'distanceFunction')
    ?.value['value'];
  const hidden = args[args.length - 1];
  const index = hidden?.type === 'parameter_name' ? Number(String(hidden['name']).replace('@__search', '')) : -1;
  const fnName = typeof written === 'string' ? written : (contexts[index]?.distanceFunction ?? 'cosine');
  return SIMILARITIES.has(fnName.toLowerCase());
}

function sortRows(q: PipelineQuery, rows: Row[], contexts: SearchContext[]): Row[] {
  const directions = q.orderBy.map((o) => (descending(o.expression, o.order, contexts) ? -1 : 1));
  const reverse = directions.includes(-1);
  // A single ORDER BY leaves out rows without a value, as the query library does.
  const kept = directions.length === 1 ? rows.filter((r) => r['o0'] !== undefined) : rows;
  return kept.sort((a, b) => {
    for (let i = 0; i < directions.length; i++) {
      const r = compareValues(a[`o${i}`], b[`o${i}`]);
      if (r !== 0) return r * (directions[i] ?? 1);
    }
    return compareValues(ridOrderKey(a['r'], reverse), ridOrderKey(b['r'], reverse));
  });
}

function groupRows(q: PipelineQuery, rows: Row[]): { keys: unknown[]; rows: Row[] }[] {
  if (q.groupBy.length === 0) return [{ keys: [], rows }];
  const groups = new Map<string, { keys: unknown[]; rows: Row[] }>();
  for (const row of rows) {
    const keys = q.groupBy.map((_, i) => row[`g${i}`]);
    const key = canonicalKey(keys);
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = { keys, rows: [] }));
    group.rows.push(row);
  }
  return [...groups.values()];
}

function project(
  q: PipelineQuery,
  group: { keys: unknown[]; rows: Row[] },
  parameters: Parameters,
  partial: boolean,
  udf: PipelineRun['udf'],
): unknown {
  const argumentsOfCall = (i: number): unknown[] => group.rows.map((r) => r[`a${i}`]);
  const whole = (fn: AggregateFunction, i: number): unknown => aggregate(fn, argumentsOfCall(i));
  const bound = [
    ...parameters,
    ...q.aggregates.map((fn, i) => ({ name: `@__a${i}`, value: whole(fn, i) })),
    ...group.keys.map((value, i) => ({ name: `@__g${i}`, value })),
  ];
  const evaluate = (executable: PipelineQuery['project']): unknown =>
    executable?.run([], { parameters: bound, udf }).result[0];
  if (!partial) return evaluate(q.project);
  const groupByItems = { groupByItems: group.keys.map((item) => ({ item })) };
  let payload: unknown;
  if (q.valueAggregate !== undefined) payload = [{ item: partialAggregate(q.valueAggregate, argumentsOfCall(0)) }];
  else if (q.items === undefined) payload = evaluate(q.project);
  else {
    const plain = (evaluate(q.projectItems) ?? {}) as Record<string, unknown>;
    let call = 0;
    payload = Object.fromEntries(
      q.items.flatMap((item) => {
        if (item.aggregate === undefined)
          return plain[item.alias] === undefined ? [] : [[item.alias, plain[item.alias]]];
        return [[item.alias, { item: partialAggregate(item.aggregate, argumentsOfCall(call++)) }]];
      }),
    );
  }
  // Without GROUP BY a VALUE aggregate's partial is the row itself, as the SDK's aggregate merge reads it.
  return q.groupBy.length === 0 && q.valueAggregate !== undefined ? payload : { ...groupByItems, payload };
}

/** Every result row of a pipeline query over `items` (unpaged). */
export function runPipeline(q: PipelineQuery, items: unknown[], run: PipelineRun): unknown[] {
  const parameters = [...(run.parameters ?? []), ...run.contexts.map((value, i) => ({ name: `@__search${i}`, value }))];
  const top = resolve(q.top, parameters, 'TOP');
  const offset = resolve(q.clauses.offset, parameters, 'OFFSET') ?? 0;
  const limit = resolve(q.clauses.limit, parameters, 'LIMIT');
  let rows = q.rows.run(items, { parameters, udf: run.udf }).result as Row[];
  let out: unknown[];
  if (q.aggregating) {
    out = groupRows(q, rows).map((group) => project(q, group, parameters, run.partial, run.udf));
    out = out.filter((value) => value !== undefined);
  } else if (q.rankWeights !== undefined) {
    out = rankRows(
      q,
      rows.filter((r) => r['p'] !== undefined),
      run.contexts,
      run.partial ? (run.component ?? 0) : undefined,
    );
  } else {
    if (q.orderBy.length > 0) rows = sortRows(q, rows, run.contexts);
    rows = rows.filter((r) => r['p'] !== undefined);
    out =
      run.partial && q.orderBy.length > 0
        ? rows.map((r) => ({
            _rid: r['r'],
            orderByItems: q.orderBy.map((_, i) => ({ item: r[`o${i}`] })),
            payload: r['p'],
          }))
        : rows.map((r) => r['p']);
  }
  if (q.clauses.distinct)
    out = distinct(out, run.partial && q.orderBy.length > 0 ? (r) => (r as Row)['payload'] : undefined);
  if (run.partial) {
    const cap = top ?? (limit === undefined ? undefined : offset + limit);
    return cap === undefined ? out : out.slice(0, cap);
  }
  if (limit !== undefined || offset > 0) out = out.slice(offset, limit === undefined ? undefined : offset + limit);
  return top === undefined ? out : out.slice(0, top);
}
