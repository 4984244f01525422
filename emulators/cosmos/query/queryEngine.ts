import { createRequire } from 'node:module';
import { badRequest } from '../errors/errorFactory.js';
import { isCosmosError } from '../errors/cosmosError.js';
import type { LibraryContinuation } from './cosmosdbQuery.js';
import { resolveEqualities } from './equalityFilter.js';
import type { ResolvedEquality } from './equalityFilter.js';
import { paginate } from './executable.js';
import type { LibraryPage, PageInput } from './executable.js';
import { PageMemo } from './pageMemo.js';
import { prepare } from './preparedQuery.js';
import type { PreparedQuery } from './preparedQuery.js';
import type { QueryShape } from './queryShape.js';
import { aggregatePartial } from './rewrite.js';

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
  /**
   * Skip work that cannot change the page: hand the document source a {@link CandidateFilter}, skip
   * documents before a `_rid` continuation, and page remembered rows when the input is unchanged.
   * @default true
   */
  prefilter?: boolean;
  /** Names the document set (container and partition) for remembering rows between pages. @default '' */
  scope?: string;
  /** User-defined functions the query may call as `udf.<id>(...)`; rows are then never remembered between pages. */
  udf?: Record<string, (...args: unknown[]) => unknown>;
}

/** A page of results. */
export interface QueryPage {
  items: unknown[];
  /** Set when more pages follow. */
  continuation?: string;
}

/**
 * What a document source may use to leave documents out: every result row's document satisfies all
 * `equalities` (top-level property ∈ values). A source may ignore it; the query still runs in full
 * over what it returns.
 */
export interface CandidateFilter {
  equalities: ResolvedEquality[];
}

/** Supplies the documents a query runs over, given the filter it may apply (undefined: all of them). */
export type DocumentSource = (filter: CandidateFilter | undefined) => unknown[];

const decodeToken = (createRequire(import.meta.url)('@zeit/cosmosdb-query/lib/continuation-token') as { decode: (token: string) => { RID?: unknown } })
  .decode;

/** Reads the pipeline-relevant shape of a query text (markers stripped). */
export function shapeOfText(text: string): QueryShape {
  return prepare(text).shape;
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
 * The filter for this run, or undefined when nothing can be skipped. A query that fails on a bare
 * document (a wrong argument count, say) fails on any document, so when the probe throws the source
 * gets no filter and the full run reports the error exactly as it would without the pre-filter.
 */
function candidateFilter(query: PreparedQuery, spec: QuerySpec): CandidateFilter | undefined {
  const equalities = resolveEqualities(query.conjuncts, spec.parameters);
  if (equalities.length === 0) return undefined;
  try {
    query.executable.run([{}], { parameters: spec.parameters });
  } catch {
    return undefined;
  }
  return { equalities };
}

/**
 * For a query paged by `_rid` (see {@link PreparedQuery.pagesByRid}), the documents at or after the
 * continuation's `_rid`: the library skips every row before it anyway, and rows stay in `_rid` order.
 */
function fromContinuation(query: PreparedQuery, items: unknown[], continuation: LibraryContinuation | undefined): unknown[] {
  if (!query.pagesByRid || continuation === undefined) return items;
  let rid: unknown;
  try {
    rid = decodeToken(continuation.token).RID;
  } catch {
    return items; // the library reports the malformed token
  }
  if (typeof rid !== 'string' || rid === '') return items;
  return items.filter((item) => {
    const own = (item as { _rid?: unknown } | null)?._rid;
    return typeof own !== 'string' || !(own < rid);
  });
}

const memo = new PageMemo();

/** Runs a paging query, reusing remembered rows when the input documents are unchanged. */
function runPaged(query: PreparedQuery, spec: QuerySpec, items: unknown[], options: RunQueryOptions, continuation: LibraryContinuation | undefined): LibraryPage {
  const { maxItemCount, udf } = options;
  if (options.prefilter === false || udf !== undefined) return query.executable.run(items, { parameters: spec.parameters, maxItemCount, continuation, udf });
  const key = `${options.scope ?? ''}\u0000${spec.query}\u0000${JSON.stringify(spec.parameters ?? [])}`;
  const remembered = continuation === undefined ? undefined : memo.get(key, items);
  if (remembered !== undefined) return paginate(remembered, maxItemCount, continuation);
  const evaluated = fromContinuation(query, items, continuation);
  let input: PageInput | undefined;
  const page = query.executable.run(evaluated, { parameters: spec.parameters, maxItemCount, continuation, capture: (i) => (input = i) });
  // Only complete inputs are remembered (a `_rid`-skipped run holds no rows before the token).
  if (page.continuation !== null && input !== undefined && evaluated === items) memo.set(key, items, input);
  return page;
}

/**
 * Executes a query with `@zeit/cosmosdb-query` semantics, including the rewritten ORDER BY and
 * aggregate forms produced for the SDK's query plan. `documents` is the full set, or a
 * {@link DocumentSource} that may use the query's {@link CandidateFilter} to return fewer.
 */
export function runQuery(spec: QuerySpec, documents: unknown[] | DocumentSource, options: RunQueryOptions = {}): QueryPage {
  if (typeof spec.query !== 'string') throw badRequest('The query text is missing.');
  const query = prepare(spec.query);
  const source: DocumentSource = typeof documents === 'function' ? documents : () => documents;
  try {
    const continuation = decodeContinuation(options.continuation);
    const items = source(options.prefilter === false ? undefined : candidateFilter(query, spec));
    if (query.rewrite.kind === 'aggregate') {
      const fn = query.shape.valueAggregate;
      if (fn === null) throw badRequest('The rewritten aggregate query has no aggregate.');
      return { items: aggregatePartial(fn, (f) => query.aggregate(f).run(items, { parameters: spec.parameters, udf: options.udf }).result[0]) };
    }
    const page = runPaged(query, spec, items, options, continuation);
    return page.continuation === null ? { items: page.result } : { items: page.result, continuation: JSON.stringify(page.continuation) };
  } catch (error) {
    if (isCosmosError(error)) throw error;
    throw badRequest(`The query could not be executed: ${(error as Error).message}`);
  }
}
