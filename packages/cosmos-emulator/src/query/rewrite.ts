import { identifier, member } from './astTools.js';
import { parseSql } from './cosmosdbQuery.js';
import type { AstNode, ParsedQuery } from './cosmosdbQuery.js';
import { rootAlias, shapeOf } from './queryShape.js';
import type { AggregateName } from './queryShape.js';

/*
 * The query plan hands the SDK a "rewritten query" that the SDK sends back per partition key range. The SDK
 * treats it as opaque text except for placeholders it fills in: the ORDER BY resume filter
 * (`{documentdb-formattableorderbyquery-filter}`, `parallelQueryExecutionContextBase.js`) and hybrid search's
 * corpus statistics (`hybridQueryExecutionContext.js`). So a rewritten query here is the original SQL behind
 * comment lines: the first names the result shape the SDK expects, the next carry those placeholders, and
 * `-- cosmos-emulator:query` ends them; the shape is rebuilt from the original query's AST.
 */

/** Comment lines that prefix rewritten queries. @internal (exported for the prefilter tests, which page rewritten queries directly) */
export const REWRITE_MARKER = {
  orderBy: '-- cosmos-emulator:rewrite=orderby',
  aggregate: '-- cosmos-emulator:rewrite=aggregate',
  pipeline: '-- cosmos-emulator:rewrite=pipeline',
  statistics: '-- cosmos-emulator:rewrite=statistics',
} as const;

/** The kind of a rewritten query. */
export type RewriteKind = keyof typeof REWRITE_MARKER;

const HEADER = '-- cosmos-emulator:';
const END_OF_HEADERS = `\n${HEADER}query\n`;

/** The kind of rewritten query, the original SQL it wraps, and the values of its header lines. */
export type Rewrite = { kind: 'none' | RewriteKind; sql: string; headers: Record<string, string> };

/** A rewritten query: the marker, `name=value` header lines (values may hold placeholders), the SQL. */
export function rewriteText(kind: RewriteKind, sql: string, headers: Record<string, string> = {}): string {
  const lines = Object.entries(headers).map(([name, value]) => `${HEADER}${name}=${value}`);
  return lines.length === 0
    ? `${REWRITE_MARKER[kind]}\n${sql}`
    : `${REWRITE_MARKER[kind]}\n${lines.join('\n')}${END_OF_HEADERS}${sql}`;
}

/** Splits the marker and header lines off a query text. */
export function detectRewrite(text: string): Rewrite {
  const newline = text.indexOf('\n');
  const first = newline === -1 ? text : text.slice(0, newline);
  const kind = (Object.keys(REWRITE_MARKER) as RewriteKind[]).find((k) => REWRITE_MARKER[k] === first);
  if (kind === undefined) return { kind: 'none', sql: text, headers: {} };
  const rest = text.slice(newline + 1);
  const end = rest.indexOf(END_OF_HEADERS);
  if (!rest.startsWith(HEADER) || end === -1) return { kind, sql: rest, headers: {} };
  // A header value may hold line breaks (a string in a resume filter): headers split where a new one starts.
  const headers: Record<string, string> = {};
  for (const entry of rest.slice(HEADER.length, end).split(`\n${HEADER}`)) {
    const equals = entry.indexOf('=');
    if (equals > 0) headers[entry.slice(0, equals)] = entry.slice(equals + 1);
  }
  return { kind, sql: rest.slice(end + END_OF_HEADERS.length), headers };
}

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
