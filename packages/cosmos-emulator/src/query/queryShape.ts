import type { AstNode, ParsedQuery } from './cosmosdbQuery.js';

/** Aggregate functions the SDK merges across partitions (`queryInfo.aggregates`). */
export const AGGREGATES = { COUNT: 'Count', SUM: 'Sum', MIN: 'Min', MAX: 'Max', AVG: 'Average' } as const;

/** Upper-case aggregate name. */
export type AggregateName = keyof typeof AGGREGATES;

/** What a query needs from the SDK's cross-partition pipeline. */
export interface QueryShape {
  top: number | null;
  /** The parameter of `TOP @n`, whose value the plan resolves. */
  topParameter: string | null;
  orderBy: { expression: AstNode; descending: boolean }[];
  /** Set for `SELECT VALUE <AGG>(...)`. */
  valueAggregate: AggregateName | null;
  hasSelectValue: boolean;
  /** Set for aggregates outside `SELECT VALUE <AGG>(...)` (e.g. `SELECT COUNT(1) AS n`), which no plan here merges. */
  nonValueAggregate: boolean;
}

function isAggregateCall(node: unknown): node is AstNode & { name: { name: string } } {
  if (node === null || typeof node !== 'object') return false;
  const n = node as AstNode;
  const name = (n['name'] as { name?: unknown } | undefined)?.name;
  return n.type === 'scalar_function_expression' && typeof name === 'string' && name.toUpperCase() in AGGREGATES;
}

/** Reads the parts of a parsed query that decide how it runs across partitions. */
export function shapeOf(query: ParsedQuery): QueryShape {
  const body = query.ast.body;
  const select = body['select'] as AstNode;
  const topValue = (body['top'] as { value?: { value?: unknown; name?: unknown } } | null)?.value;
  const top = topValue?.value;
  const sort =
    (body['orderBy'] as { expressions?: { expression: AstNode; order: string | null }[] } | null)?.expressions ?? [];
  const value = select['value'];
  return {
    top: typeof top === 'number' ? top : null,
    topParameter: typeof topValue?.name === 'string' ? topValue.name : null,
    orderBy: sort.map((s) => ({ expression: s.expression, descending: s.order === 'DESC' })),
    valueAggregate: isAggregateCall(value) ? (value.name.name.toUpperCase() as AggregateName) : null,
    hasSelectValue: value !== undefined,
    nonValueAggregate: !isAggregateCall(value) && containsAggregateCall(select),
  };
}

function containsAggregateCall(node: unknown): boolean {
  if (isAggregateCall(node)) return true;
  if (node === null || typeof node !== 'object') return false;
  return Object.values(node as object).some(containsAggregateCall);
}

/** True when a cross-partition query must go through the SDK's query-plan pipeline. */
export function needsQueryPlan(shape: QueryShape): boolean {
  return shape.top !== null || shape.topParameter !== null || shape.orderBy.length > 0 || shape.valueAggregate !== null;
}

/** The collection alias (`c` in `FROM c`, `r` in `FROM root r`). */
export function rootAlias(query: ParsedQuery): AstNode {
  const source = (query.ast.body['from'] as { source: { alias: AstNode | null; expression: { expression: AstNode } } })
    .source;
  return source.alias ?? source.expression.expression;
}
