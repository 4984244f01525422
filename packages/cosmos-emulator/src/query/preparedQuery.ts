import { createRequire } from 'node:module';
import { badRequest } from '../errors/errorFactory.js';
import { expressionText } from './astTools.js';
import { isSqlSyntaxError, parseSql } from './cosmosdbQuery.js';
import type { AstNode, ParsedQuery } from './cosmosdbQuery.js';
import { documentAlias, equalityConjuncts } from './equalityFilter.js';
import type { EqualityConjunct } from './equalityFilter.js';
import { toExecutable } from './executable.js';
import type { Executable } from './executable.js';
import { LRUCache } from 'lru-cache';
import { AGGREGATES, shapeOf } from './queryShape.js';
import type { AggregateName, QueryShape } from './queryShape.js';
import { splitClauses, hasExtraClauses } from './clauses.js';
import { compilePipeline, needsPipeline } from './pipelineQuery.js';
import type { PipelineQuery } from './pipelineQuery.js';
import { aggregateVariant, detectRewrite, rewriteText, toOrderByShape } from './rewrite.js';
import type { Rewrite } from './rewrite.js';

/** Everything derived from a query text once: parse, shape, pre-filter analysis and generated code. */
export interface PreparedQuery {
  rewrite: Rewrite;
  /** Shape of the SQL behind any rewrite marker (before the ORDER BY rewrite reshapes the SELECT). */
  shape: QueryShape;
  /** Set when the query runs through the pipeline (`pipeline.ts`) rather than the library alone. */
  pipeline: PipelineQuery | undefined;
  /**
   * For a range's ORDER BY resumed with the SDK's filter on its ORDER BY values: the text of the same query without
   * the filter, and the filter as a test of a row (`{ orderByItems }`), so pages come from that query's rows.
   */
  resume: { baseText: string; keep: (row: unknown) => boolean } | undefined;
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
function compile(sql: string): ParsedQuery {
  try {
    return parseSql(sql);
  } catch (error) {
    if (!isSqlSyntaxError(error)) throw error;
    throw badRequest(`Syntax error, ${(error as Error).message}`);
  }
}

/**
 * ANDs the SDK's ORDER BY resume filter (`c.amount >= 5`, or `true` when there is none) into the query's WHERE,
 * so a range resumed from a continuation token starts after the last value the client saw.
 */
function applyResumeFilter(parsed: ParsedQuery, filter: string | undefined): void {
  if (filter === undefined || /^\(?\s*true\s*\)?$/i.test(filter.trim())) return;
  const condition = (compile(`SELECT * FROM root WHERE ${filter}`).ast.body['where'] as { condition: AstNode })
    .condition;
  const body = parsed.ast.body;
  const where = body['where'] as { condition: AstNode } | null;
  const combined =
    where === null
      ? condition
      : { type: 'scalar_binary_expression', operator: 'AND', left: condition, right: where.condition };
  body['where'] = { type: 'filter_condition', condition: combined };
}

function containsAggregate(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(containsAggregate);
  if (node === null || typeof node !== 'object') return false;
  const n = node as AstNode;
  const name = (n['name'] as { name?: unknown } | undefined)?.name;
  if (n.type === 'scalar_function_expression' && typeof name === 'string' && name.toUpperCase() in AGGREGATES)
    return true;
  return Object.values(n).some(containsAggregate);
}

function prepareText(text: string): PreparedQuery {
  const rewrite = detectRewrite(text);
  const clauses = splitClauses(rewrite.sql);
  const parsed = compile(clauses.core);
  const filter = rewrite.headers['filter'];
  const resume = rewrite.kind === 'orderBy' && filter !== undefined ? resumeTest(filter, shapeOf(parsed)) : undefined;
  if (resume === undefined) applyResumeFilter(parsed, filter);
  const shape = shapeOf(parsed);
  const conjuncts = equalityConjuncts(parsed);
  const usesPipeline = hasExtraClauses(clauses) || shape.nonValueAggregate || needsPipeline(parsed);
  const pipeline = usesPipeline ? compilePipeline(clauses, parsed) : undefined;
  const pagesByRid =
    rewrite.kind === 'none' &&
    pipeline === undefined &&
    documentAlias(parsed) !== null &&
    shape.top === null &&
    shape.orderBy.length === 0 &&
    !containsAggregate(parsed.ast.body['select']);
  const executable = toExecutable(rewrite.kind === 'orderBy' ? toOrderByShape(parsed) : parsed);
  const variants = new Map<AggregateName, Executable>();
  return {
    rewrite,
    shape,
    pipeline,
    resume: resume === undefined ? undefined : { baseText: rewriteText('orderBy', rewrite.sql), keep: resume },
    executable,
    conjuncts,
    pagesByRid,
    aggregate(fn) {
      let variant = variants.get(fn);
      if (variant === undefined) variants.set(fn, (variant = toExecutable(aggregateVariant(clauses.core, fn))));
      return variant;
    },
  };
}

type Compare = (operator: string, a: unknown, b: unknown) => boolean | undefined;
const compareValues = (createRequire(import.meta.url)('@zeit/cosmosdb-query/lib/helpers') as { compare: Compare })
  .compare;

/**
 * The SDK's resume filter — `true`, or comparisons of ORDER BY expressions with literals joined by AND — as a test
 * of a rewritten ORDER BY row, with the comparison semantics of the query itself; undefined for anything else.
 */
function resumeTest(filter: string, shape: QueryShape): ((row: unknown) => boolean) | undefined {
  const condition = (compile(`SELECT * FROM root WHERE ${filter}`).ast.body['where'] as { condition: AstNode })
    .condition;
  const texts = shape.orderBy.map((o) => expressionText(o.expression));
  const tests: ((items: unknown[]) => boolean)[] = [];
  const visit = (node: AstNode): boolean => {
    if (node.type === 'boolean_constant' && node['value'] === true) return true;
    if (node.type !== 'scalar_binary_expression') return false;
    const operator = String(node['operator']);
    if (operator === 'AND') return visit(node['left'] as AstNode) && visit(node['right'] as AstNode);
    const index = texts.indexOf(expressionText(node['left'] as AstNode));
    const right = node['right'] as AstNode;
    const literal = ['string_constant', 'number_constant', 'boolean_constant'].includes(right.type)
      ? right['value']
      : right.type === 'null_constant'
        ? null
        : undefined;
    if (!['>', '>=', '<', '<='].includes(operator) || index < 0 || literal === undefined) return false;
    tests.push((items) => compareValues(operator, items[index], literal) === true);
    return true;
  };
  if (!visit(condition)) return undefined;
  return (row) => {
    const items = ((row as { orderByItems?: { item?: unknown }[] } | null)?.orderByItems ?? []).map((i) => i.item);
    return tests.every((test) => test(items));
  };
}

/*
 * Parsing and code generation cost far more than running a query over a partition, and the SDK sends
 * the same few texts over and over; prepared queries are therefore cached by text.
 */
const prepared = new LRUCache<string, PreparedQuery>({ max: 256 });

/** The prepared form of a query text (cached). @throws CosmosError 400 on a syntax error. */
export function prepare(text: string): PreparedQuery {
  const cached = prepared.get(text);
  if (cached !== undefined) return cached;
  const query = prepareText(text);
  prepared.set(text, query);
  return query;
}
