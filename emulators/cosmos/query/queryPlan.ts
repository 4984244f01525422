import { LruCache } from './lruCache.js';
import { prepare } from './preparedQuery.js';
import { AGGREGATES, expressionText } from './queryShape.js';
import { REWRITE_MARKER } from './rewrite.js';

/** The only partition key range the emulator serves (the whole hash space). */
export const FULL_RANGE = { min: '', max: 'FF', isMinInclusive: true, isMaxInclusive: false };

/**
 * Builds the `PartitionedQueryExecutionInfo` the SDK asks for with `x-ms-cosmos-is-query-plan-request`
 * (see `queryIterator.js` / `pipelinedQueryExecutionContext.js` in `@azure/cosmos`). ORDER BY and
 * VALUE-aggregate queries get a rewritten query whose results carry `orderByItems`/`payload` or
 * `[{ item }]` partials, which the SDK's pipeline merges exactly as it does for the real service.
 */
export function buildQueryPlan(sql: string): Record<string, unknown> {
  // The SDK asks for a plan before every query, partition-scoped ones included: plans are cached by text.
  return plans.get(sql, () => planOf(sql));
}

const plans = new LruCache<Record<string, unknown>>(256);

function planOf(sql: string): Record<string, unknown> {
  const shape = prepare(sql).shape;
  let rewrittenQuery = '';
  if (shape.orderBy.length > 0) rewrittenQuery = `${REWRITE_MARKER.orderBy}\n${sql}`;
  else if (shape.valueAggregate !== null) rewrittenQuery = `${REWRITE_MARKER.aggregate}\n${sql}`;
  return {
    partitionedQueryExecutionInfoVersion: 2,
    queryInfo: {
      distinctType: 'None',
      top: shape.top,
      offset: null,
      limit: null,
      orderBy: shape.orderBy.map((o) => (o.descending ? 'Descending' : 'Ascending')),
      orderByExpressions: shape.orderBy.map((o) => expressionText(o.expression)),
      groupByExpressions: [],
      groupByAliases: [],
      aggregates: shape.valueAggregate === null ? [] : [AGGREGATES[shape.valueAggregate]],
      groupByAliasToAggregateType: {},
      rewrittenQuery,
      hasSelectValue: shape.hasSelectValue,
      dCountInfo: null,
      hasNonStreamingOrderBy: false,
    },
    queryRanges: [FULL_RANGE],
  };
}
