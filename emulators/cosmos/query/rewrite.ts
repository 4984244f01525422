import { parseSql } from './cosmosdbQuery.js';
import type { AstNode, ParsedQuery } from './cosmosdbQuery.js';
import { rootAlias, shapeOf } from './queryShape.js';
import type { AggregateName } from './queryShape.js';

/*
 * The query plan hands the SDK a "rewritten query" that the SDK sends back per partition key range.
 * The SDK treats it as opaque text (it only substitutes an ORDER BY filter placeholder, which we do
 * not use), so we mark it with a comment line naming the result shape the SDK expects and rebuild
 * that shape here from the original query's AST.
 */

/** Comment lines that prefix rewritten queries. */
export const REWRITE_MARKER = {
  orderBy: '-- cosmos-emulator:rewrite=orderby',
  aggregate: '-- cosmos-emulator:rewrite=aggregate',
} as const;

/** The kind of rewritten query and the original SQL it wraps. */
export type Rewrite = { kind: 'none' | 'orderBy' | 'aggregate'; sql: string };

/** Splits the marker off a query text. */
export function detectRewrite(text: string): Rewrite {
  const newline = text.indexOf('\n');
  const first = newline === -1 ? text : text.slice(0, newline);
  if (first === REWRITE_MARKER.orderBy) return { kind: 'orderBy', sql: text.slice(newline + 1) };
  if (first === REWRITE_MARKER.aggregate) return { kind: 'aggregate', sql: text.slice(newline + 1) };
  return { kind: 'none', sql: text };
}

const identifier = (name: string): AstNode => ({ type: 'identifier', name });
const member = (object: AstNode, name: string): AstNode => ({
  type: 'scalar_member_expression',
  object,
  property: identifier(name),
  computed: false,
});

/**
 * Turns `SELECT <p> FROM c ... ORDER BY e1, e2` into rows of
 * `{ _rid, orderByItems: [{ item: e1 }, { item: e2 }], payload: <p> }`, the shape the SDK's
 * ORDER BY merge reads. Must run before the query's first `exec` (code is generated lazily).
 */
export function toOrderByShape(query: ParsedQuery): ParsedQuery {
  const body = query.ast.body;
  const select = body['select'] as AstNode;
  const alias = rootAlias(query);
  const payload = (select['value'] as AstNode | undefined) ?? (select['properties'] as AstNode | undefined) ?? alias;
  const items = shapeOf(query).orderBy.map((o) => ({
    type: 'object_constant',
    properties: [{ key: { type: 'string_constant', value: 'item' }, value: o.expression }],
  }));
  body['select'] = {
    type: 'select_specification',
    properties: {
      type: 'object_property_list',
      properties: [
        { property: member(alias, '_rid'), alias: identifier('_rid') },
        { property: { type: 'array_constant', elements: items }, alias: identifier('orderByItems') },
        { property: payload, alias: identifier('payload') },
      ],
    },
  };
  return query;
}

type Parameters = { name: string; value: unknown }[] | undefined;

/** Runs `SELECT VALUE <fn>(<same arguments>) ...` over the items and returns the single value. */
function aggregateValue(sql: string, fn: AggregateName, items: unknown[], parameters: Parameters): unknown {
  const query = parseSql(sql);
  const value = (query.ast.body['select'] as AstNode)['value'] as AstNode & { name: { name: string } };
  value.name.name = fn;
  return query.exec(items, { parameters }).result[0];
}

/**
 * Computes one range's partial result for `SELECT VALUE <AGG>(...)` in the shape the SDK's
 * aggregators merge: a row `[{ item: partial }]`, where MIN/MAX carry `{ min|max, count }` and AVG
 * carries `{ sum, count }`.
 */
export function aggregatePartial(sql: string, fn: AggregateName, items: unknown[], parameters: Parameters): unknown[] {
  let partial: unknown;
  switch (fn) {
    case 'COUNT':
    case 'SUM':
      partial = aggregateValue(sql, fn, items, parameters);
      break;
    case 'MIN':
    case 'MAX': {
      const count = aggregateValue(sql, 'COUNT', items, parameters);
      partial = count === 0 ? { count } : { [fn.toLowerCase()]: aggregateValue(sql, fn, items, parameters), count };
      break;
    }
    case 'AVG':
      partial = { sum: aggregateValue(sql, 'SUM', items, parameters), count: aggregateValue(sql, 'COUNT', items, parameters) };
      break;
  }
  // One result row per range, itself an array, as `SELECT VALUE [{"item": ...}]` yields on the service.
  return [[partial === undefined ? {} : { item: partial }]];
}
