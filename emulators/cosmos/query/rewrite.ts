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

/** `SELECT VALUE <fn>(<same arguments>) ...`: the original aggregate query with the function swapped. */
export function aggregateVariant(sql: string, fn: AggregateName): ParsedQuery {
  const query = parseSql(sql);
  const value = (query.ast.body['select'] as AstNode)['value'] as AstNode & { name: { name: string } };
  value.name.name = fn;
  return query;
}

/**
 * Computes one range's partial result for `SELECT VALUE <AGG>(...)` in the shape the SDK's
 * aggregators merge: a row `[{ item: partial }]`, where MIN/MAX carry `{ min|max, count }` and AVG
 * carries `{ sum, count }`. `valueOf(fn)` runs the query's variant with aggregate `fn`.
 */
export function aggregatePartial(fn: AggregateName, valueOf: (fn: AggregateName) => unknown): unknown[] {
  let partial: unknown;
  switch (fn) {
    case 'COUNT':
    case 'SUM':
      partial = valueOf(fn);
      break;
    case 'MIN':
    case 'MAX': {
      const count = valueOf('COUNT');
      partial = count === 0 ? { count } : { [fn.toLowerCase()]: valueOf(fn), count };
      break;
    }
    case 'AVG':
      partial = { sum: valueOf('SUM'), count: valueOf('COUNT') };
      break;
  }
  // One result row per range, itself an array, as `SELECT VALUE [{"item": ...}]` yields on the service.
  return [[partial === undefined ? {} : { item: partial }]];
}
