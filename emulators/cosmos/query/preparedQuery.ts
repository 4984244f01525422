import { badRequest } from '../errors/errorFactory.js';
import { isSqlSyntaxError, parseSql } from './cosmosdbQuery.js';
import type { AstNode, ParsedQuery } from './cosmosdbQuery.js';
import { documentAlias, equalityConjuncts } from './equalityFilter.js';
import type { EqualityConjunct } from './equalityFilter.js';
import { toExecutable } from './executable.js';
import type { Executable } from './executable.js';
import { LruCache } from './lruCache.js';
import { AGGREGATES, shapeOf } from './queryShape.js';
import type { AggregateName, QueryShape } from './queryShape.js';
import { aggregateVariant, detectRewrite, toOrderByShape } from './rewrite.js';
import type { Rewrite } from './rewrite.js';

/** Everything derived from a query text once: parse, shape, pre-filter analysis and generated code. */
export interface PreparedQuery {
  rewrite: Rewrite;
  /** Shape of the SQL behind any rewrite marker (before the ORDER BY rewrite reshapes the SELECT). */
  shape: QueryShape;
  executable: Executable;
  /** Top-level equality conjuncts usable to skip documents (see `equalityFilter.ts`). */
  conjuncts: EqualityConjunct[];
  /**
   * True when the library pages this query by `_rid` alone (whole documents, no JOIN, ORDER BY, TOP or
   * aggregate): rows come sorted by `_rid` and a continuation resumes at the first `_rid` ≥ its own, so
   * documents below that `_rid` can be skipped without changing the page.
   */
  pagesByRid: boolean;
  /** The `SELECT VALUE <fn>(...)` variant of an aggregate query, compiled once per function. */
  aggregate(fn: AggregateName): Executable;
}

/** Parses Cosmos SQL, mapping syntax errors to the service's 400. */
export function compile(sql: string): ParsedQuery {
  try {
    return parseSql(sql);
  } catch (error) {
    if (!isSqlSyntaxError(error)) throw error;
    const feature = unsupportedFeature(sql);
    if (feature !== undefined) throw badRequest(`The emulator does not support ${feature} in queries: ${(error as Error).message}`);
    throw badRequest(`Syntax error, ${(error as Error).message}`);
  }
}

/** Clauses of Cosmos SQL the emulator's parser lacks, named so a refusal says which one (string literals ignored). */
const UNSUPPORTED_CLAUSES: [RegExp, string][] = [
  [/\bOFFSET\b/i, 'OFFSET LIMIT'],
  [/\bGROUP\s+BY\b/i, 'GROUP BY'],
  [/\bDISTINCT\b/i, 'DISTINCT'],
];

function unsupportedFeature(sql: string): string | undefined {
  const code = sql.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g, "''");
  return UNSUPPORTED_CLAUSES.find(([pattern]) => pattern.test(code))?.[1];
}

function containsAggregate(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(containsAggregate);
  if (node === null || typeof node !== 'object') return false;
  const n = node as AstNode;
  const name = (n['name'] as { name?: unknown } | undefined)?.name;
  if (n.type === 'scalar_function_expression' && typeof name === 'string' && name.toUpperCase() in AGGREGATES) return true;
  return Object.values(n).some(containsAggregate);
}

function prepareText(text: string): PreparedQuery {
  const rewrite = detectRewrite(text);
  const parsed = compile(rewrite.sql);
  const shape = shapeOf(parsed);
  const conjuncts = equalityConjuncts(parsed);
  const pagesByRid =
    rewrite.kind === 'none' &&
    documentAlias(parsed) !== null && shape.top === null && shape.orderBy.length === 0 && !containsAggregate(parsed.ast.body['select']);
  const executable = toExecutable(rewrite.kind === 'orderBy' ? toOrderByShape(parsed) : parsed);
  const variants = new Map<AggregateName, Executable>();
  return {
    rewrite,
    shape,
    executable,
    conjuncts,
    pagesByRid,
    aggregate(fn) {
      let variant = variants.get(fn);
      if (variant === undefined) variants.set(fn, (variant = toExecutable(aggregateVariant(rewrite.sql, fn))));
      return variant;
    },
  };
}

/*
 * Parsing and code generation cost far more than running a query over a partition, and the SDK sends
 * the same few texts over and over; prepared queries are therefore cached by text.
 */
const prepared = new LruCache<PreparedQuery>(256);

/** The prepared form of a query text (cached). @throws CosmosError 400 on a syntax error. */
export function prepare(text: string): PreparedQuery {
  return prepared.get(text, () => prepareText(text));
}
