import { badRequest } from '../errors/errorFactory.js';
import { isCosmosError } from '../errors/cosmosError.js';
import { isSqlSyntaxError, parseSql } from './cosmosdbQuery.js';
import type { LibraryContinuation, ParsedQuery } from './cosmosdbQuery.js';
import { shapeOf } from './queryShape.js';
import type { QueryShape } from './queryShape.js';
import { aggregatePartial, detectRewrite, toOrderByShape } from './rewrite.js';

/** A query as the SDK posts it. */
export interface QuerySpec {
  query: string;
  parameters?: { name: string; value: unknown }[];
}

/** Paging options for {@link runQuery}. */
export interface RunQueryOptions {
  /** Page size; undefined returns everything. */
  maxItemCount?: number;
  /** Opaque continuation from a previous page (`x-ms-continuation`). */
  continuation?: string;
}

/** A page of results. */
export interface QueryPage {
  items: unknown[];
  /** Set when more pages follow. */
  continuation?: string;
}

/** Parses a query, mapping syntax errors to the service's 400. */
export function compile(sql: string): ParsedQuery {
  try {
    return parseSql(sql);
  } catch (error) {
    if (isSqlSyntaxError(error)) throw badRequest(`Syntax error, ${(error as Error).message}`);
    throw error;
  }
}

/*
 * The library generates JavaScript for each parsed query on first use, which costs far more than
 * running it; executable queries are therefore cached by text (insertion-ordered map as a small LRU).
 */
const EXECUTABLE_CACHE_SIZE = 256;
const executables = new Map<string, ParsedQuery>();

function executable(text: string, build: () => ParsedQuery): ParsedQuery {
  const cached = executables.get(text);
  if (cached !== undefined) {
    executables.delete(text);
    executables.set(text, cached);
    return cached;
  }
  const query = build();
  executables.set(text, query);
  if (executables.size > EXECUTABLE_CACHE_SIZE) executables.delete(executables.keys().next().value as string);
  return query;
}

/** Reads the pipeline-relevant shape of a query text (markers stripped). */
export function shapeOfText(text: string): QueryShape {
  return shapeOf(compile(detectRewrite(text).sql));
}

function decodeContinuation(token: string | undefined): LibraryContinuation | undefined {
  if (token === undefined || token === '') return undefined;
  try {
    const parsed = JSON.parse(token) as LibraryContinuation;
    if (typeof parsed.token !== 'string') throw new Error('no token');
    return parsed;
  } catch {
    throw badRequest('The continuation token is malformed.');
  }
}

/**
 * Executes a query over documents with `@zeit/cosmosdb-query`, including the rewritten ORDER BY and
 * aggregate forms produced for the SDK's query plan.
 */
export function runQuery(spec: QuerySpec, documents: unknown[], options: RunQueryOptions = {}): QueryPage {
  if (typeof spec.query !== 'string') throw badRequest('The query text is missing.');
  const rewrite = detectRewrite(spec.query);
  const query = executable(spec.query, () => {
    const parsed = compile(rewrite.sql);
    return rewrite.kind === 'orderBy' ? toOrderByShape(parsed) : parsed;
  });
  try {
    if (rewrite.kind === 'aggregate') {
      const fn = shapeOf(query).valueAggregate;
      if (fn === null) throw badRequest('The rewritten aggregate query has no aggregate.');
      return { items: aggregatePartial(rewrite.sql, fn, documents, spec.parameters) };
    }
    const { result, continuation } = query.exec(documents, {
      parameters: spec.parameters,
      maxItemCount: options.maxItemCount,
      continuation: decodeContinuation(options.continuation),
    });
    return continuation === null ? { items: result } : { items: result, continuation: JSON.stringify(continuation) };
  } catch (error) {
    if (isCosmosError(error)) throw error;
    throw badRequest(`The query could not be executed: ${(error as Error).message}`);
  }
}
