import { parseSql } from './cosmosdbQuery.js';
import { AGGREGATES, expressionText, shapeOf } from './queryShape.js';
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
  const shape = shapeOf(parseSql(sql));
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
