import { badRequest } from '../errors/errorFactory.js';
import { AGGREGATE_TYPES } from './aggregates.js';
import { callName, expressionText } from './astTools.js';
import type { Count } from './clauses.js';
import type { AstNode } from './cosmosdbQuery.js';
import { hybridPlan } from './hybridSearch.js';
import { LRUCache } from 'lru-cache';
import { descending } from './pipeline.js';
import type { PipelineQuery } from './pipelineQuery.js';
import { prepare } from './preparedQuery.js';
import type { PreparedQuery } from './preparedQuery.js';
import { rewriteText } from './rewrite.js';
import { searchContexts } from './searchFunctions.js';
import type { SearchPolicies } from './searchFunctions.js';

/** The only partition key range the emulator serves (the whole hash space). */
const FULL_RANGE = { min: '', max: 'FF', isMinInclusive: true, isMaxInclusive: false };

/** Where the SDK writes its ORDER BY resume filter into a rewritten query (`parallelQueryExecutionContextBase.js`). */
const RESUME_FILTER = '{documentdb-formattableorderbyquery-filter}';

type Parameters = { name: string; value: unknown }[] | undefined;

/**
 * Builds the `PartitionedQueryExecutionInfo` the SDK asks for with `x-ms-cosmos-is-query-plan-request`
 * (see `queryIterator.js` / `pipelinedQueryExecutionContext.js` in `@azure/cosmos`). ORDER BY, aggregate, GROUP BY,
 * DISTINCT and OFFSET LIMIT queries get a rewritten query whose per-range results carry the shapes the SDK's
 * pipeline merges (`orderByItems`/`payload`, `groupByItems`, `[{ item }]` partials), exactly as for the service.
 * @throws 400 naming what a query across partitions cannot do here.
 */
export function buildQueryPlan(
  sql: string,
  parameters: Parameters = undefined,
  policies: SearchPolicies = {},
): Record<string, unknown> {
  // The SDK asks for a plan before every query, partition-scoped ones included: plans are cached.
  const key = `${sql}\u0000${JSON.stringify(parameters ?? [])}\u0000${JSON.stringify(policies)}`;
  const cached = plans.get(key);
  if (cached !== undefined) return cached;
  const plan = planOf(sql, parameters, policies);
  plans.set(key, plan);
  return plan;
}

const plans = new LRUCache<string, Record<string, unknown>>({ max: 256 });

function resolve(count: Count | undefined, parameters: Parameters): number | null {
  if (count === undefined) return null;
  const value = 'value' in count ? count.value : parameters?.find((p) => p.name === count.parameter)?.value;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    throw badRequest('TOP, OFFSET and LIMIT take non-negative integers.');
  return value;
}

function planOf(sql: string, parameters: Parameters, policies: SearchPolicies): Record<string, unknown> {
  const prepared = prepare(sql);
  const q = prepared.pipeline;
  if (q?.rankWeights !== undefined) {
    const bounds = {
      top: resolve(q.top, parameters),
      offset: resolve(q.clauses.offset, parameters),
      limit: resolve(q.clauses.limit, parameters),
    };
    return {
      partitionedQueryExecutionInfoVersion: 2,
      hybridSearchQueryInfo: hybridPlan(q, sql, policies, bounds),
      queryRanges: [FULL_RANGE],
    };
  }
  const queryInfo =
    prepared.pipeline === undefined
      ? libraryInfo(prepared, sql, parameters)
      : pipelineInfo(prepared.pipeline, sql, parameters, policies);
  return { partitionedQueryExecutionInfoVersion: 2, queryInfo, queryRanges: [FULL_RANGE] };
}

const NO_GROUPING = { groupByExpressions: [], groupByAliases: [], groupByAliasToAggregateType: {}, dCountInfo: null };

function libraryInfo(prepared: PreparedQuery, sql: string, parameters: Parameters): Record<string, unknown> {
  const { shape } = prepared;
  let rewrittenQuery = '';
  if (shape.orderBy.length > 0) rewrittenQuery = rewriteText('orderBy', sql, { filter: RESUME_FILTER });
  else if (shape.valueAggregate !== null) rewrittenQuery = rewriteText('aggregate', sql);
  const top = shape.topParameter === null ? shape.top : resolve({ parameter: shape.topParameter }, parameters);
  return {
    distinctType: 'None',
    top,
    offset: null,
    limit: null,
    orderBy: shape.orderBy.map((o) => (o.descending ? 'Descending' : 'Ascending')),
    orderByExpressions: shape.orderBy.map((o) => expressionText(o.expression)),
    ...NO_GROUPING,
    aggregates: shape.valueAggregate === null ? [] : [AGGREGATE_TYPES[shape.valueAggregate]],
    rewrittenQuery,
    hasSelectValue: shape.hasSelectValue,
    hasNonStreamingOrderBy: false,
  };
}

const isSearch = (node: AstNode): boolean => ['VECTORDISTANCE', 'FULLTEXTSCORE'].includes(callName(node) ?? '');

function pipelineInfo(
  q: PipelineQuery,
  sql: string,
  parameters: Parameters,
  policies: SearchPolicies,
): Record<string, unknown> {
  const topLevel =
    q.items === undefined
      ? q.valueAggregate === undefined
        ? 0
        : 1
      : q.items.filter((i) => i.aggregate !== undefined).length;
  if (q.aggregating && topLevel !== q.aggregates.length) {
    throw badRequest(
      'The emulator does not support aggregates inside expressions in queries across partitions; select each aggregate as an item of its own.',
    );
  }
  const contexts = searchContexts(q.searchCalls, policies, []);
  const nonStreaming = q.orderBy.some((o) => isSearch(o.expression));
  const aliasTypes =
    q.aggregating && q.items !== undefined
      ? Object.fromEntries(
          q.items.map((i) => [i.alias, i.aggregate === undefined ? null : AGGREGATE_TYPES[i.aggregate]]),
        )
      : {};
  return {
    distinctType: q.clauses.distinct ? (q.orderBy.length > 0 ? 'Ordered' : 'Unordered') : 'None',
    top: resolve(q.top, parameters),
    offset: q.clauses.offset === undefined ? null : resolve(q.clauses.offset, parameters),
    limit: q.clauses.limit === undefined ? null : resolve(q.clauses.limit, parameters),
    orderBy: q.orderBy.map((o) => (descending(o.expression, o.order, contexts) ? 'Descending' : 'Ascending')),
    orderByExpressions: q.orderBy.map((o) => o.text),
    groupByExpressions: q.groupBy.map((g) => g.text),
    groupByAliases: q.aggregating ? (q.items ?? []).map((i) => i.alias) : [],
    aggregates: q.valueAggregate === undefined ? [] : [AGGREGATE_TYPES[q.valueAggregate]],
    groupByAliasToAggregateType: aliasTypes,
    dCountInfo: null,
    rewrittenQuery: rewriteText(
      'pipeline',
      sql,
      q.orderBy.length > 0 && !nonStreaming ? { filter: RESUME_FILTER } : {},
    ),
    hasSelectValue: q.hasSelectValue,
    hasNonStreamingOrderBy: nonStreaming,
  };
}
