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
import { needsQueryPlan } from './queryShape.js';
import { statisticsFromHeader, statisticsRow } from './hybridSearch.js';
import { descending, runPipeline } from './pipeline.js';
import { pageRows, invalidContinuation } from './pipelinePaging.js';
import type { PipelineQuery } from './pipelineQuery.js';
import { aggregatePartial } from './rewrite.js';
import { ridOrderKey } from './ridOrder.js';
import { searchContexts } from './searchFunctions.js';
import type { SearchPolicies } from './searchFunctions.js';

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
  /** The container's vector embedding and full-text policies, which search functions follow. @default {} */
  policies?: SearchPolicies;
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

const decodeToken = (
  createRequire(import.meta.url)('@zeit/cosmosdb-query/lib/continuation-token') as {
    decode: (token: string) => { RID?: unknown };
  }
).decode;

/** True when a query across partitions must follow the SDK's query plan (a rewritten query is never sent without). */
export function needsPlan(text: string): boolean {
  const query = prepare(text);
  return query.rewrite.kind === 'none' && (query.pipeline !== undefined || needsQueryPlan(query.shape));
}

/** A library continuation token past every row: `~` sorts after every character of a `_rid`. */
const PAST_THE_END = '+RID:~#RT:1#TRC:0';

function decodeContinuation(token: string | undefined): LibraryContinuation | undefined {
  if (token === undefined || token === '') return undefined;
  try {
    const parsed = JSON.parse(token) as LibraryContinuation;
    if (typeof parsed.token !== 'string') throw new Error('no token');
    return parsed;
  } catch {
    throw invalidContinuation('the token is malformed.');
  }
}

/** Runs a pipeline query (or answers hybrid search's statistics query) and pages its rows. */
function runPipelinePaged(
  query: PreparedQuery,
  pipeline: PipelineQuery,
  spec: QuerySpec,
  items: unknown[],
  options: RunQueryOptions,
): QueryPage {
  const policies = options.policies ?? {};
  if (query.rewrite.kind === 'statistics') return { items: [statisticsRow(pipeline, items, policies)] };
  const partial = query.rewrite.kind === 'pipeline';
  const contexts = searchContexts(
    pipeline.searchCalls,
    policies,
    items,
    statisticsFromHeader(pipeline, query.rewrite.headers['statistics']),
  );
  const component = query.rewrite.headers['component'];
  const rows = runPipeline(pipeline, items, {
    parameters: spec.parameters,
    partial,
    contexts,
    component: component === undefined ? undefined : Number(component),
    udf: options.udf,
  });
  // A range's ORDER BY rows continue by position: the SDK resumes them with a filter on the last values.
  const streaming =
    partial && !pipeline.aggregating && pipeline.rankWeights === undefined && pipeline.orderBy.length > 0;
  const directions = streaming
    ? pipeline.orderBy.map((o) => (descending(o.expression, o.order, contexts) ? -1 : 1))
    : undefined;
  return pageRows(rows, options.maxItemCount, options.continuation, directions);
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
function fromContinuation(
  query: PreparedQuery,
  items: unknown[],
  continuation: LibraryContinuation | undefined,
): unknown[] {
  if (!query.pagesByRid || continuation === undefined) return items;
  let rid: unknown;
  try {
    rid = decodeToken(continuation.token).RID;
  } catch {
    return items; // the library reports the malformed token
  }
  if (typeof rid !== 'string' || rid === '') return items;
  return items.filter((item) => {
    const own = ridOrderKey((item as { _rid?: unknown } | null)?._rid);
    return typeof own !== 'string' || !(own < rid);
  });
}

const memo = new PageMemo();

/**
 * Runs a paging query, reusing remembered rows when the input documents are unchanged. `keep` narrows the rows
 * (the SDK's ORDER BY resume filter, applied to remembered rows rather than by running the query again).
 */
function runPaged(
  query: PreparedQuery,
  text: string,
  spec: QuerySpec,
  items: unknown[],
  options: RunQueryOptions,
  continuation: LibraryContinuation | undefined,
  keep?: (row: unknown) => boolean,
): LibraryPage {
  const { maxItemCount, udf } = options;
  const narrow = (input: PageInput): PageInput =>
    keep === undefined ? input : { rows: input.rows.filter((row) => keep((row as unknown[])[0])), rest: input.rest };
  if ((options.prefilter === false || udf !== undefined) && keep === undefined)
    return query.executable.run(items, { parameters: spec.parameters, maxItemCount, continuation, udf });
  if (udf !== undefined) {
    // UDFs may not be pure: their rows are evaluated every time, never remembered.
    let input: PageInput | undefined;
    const page = query.executable.run(items, {
      parameters: spec.parameters,
      maxItemCount,
      udf,
      capture: (i) => (input = i),
    });
    return input === undefined ? page : paginate(narrow(input), maxItemCount, continuation);
  }
  const key = `${options.scope ?? ''}\u0000${text}\u0000${JSON.stringify(spec.parameters ?? [])}`;
  const remembered = continuation === undefined && keep === undefined ? undefined : memo.get(key, items);
  if (remembered !== undefined) return paginate(narrow(remembered), maxItemCount, continuation);
  // A stale entry means the documents change between pages: then skip by `_rid` rather than remember.
  const evaluated = keep === undefined && memo.has(key) ? fromContinuation(query, items, continuation) : items;
  let input: PageInput | undefined;
  const run = (c: LibraryContinuation | undefined): LibraryPage =>
    query.executable.run(evaluated, {
      parameters: spec.parameters,
      maxItemCount,
      continuation: c,
      capture: (i) => (input = i),
    });
  let page = run(keep === undefined ? continuation : undefined);
  // Only complete inputs are remembered (a `_rid`-skipped run holds no rows before the token).
  if (input !== undefined && evaluated === items && (page.continuation !== null || keep !== undefined))
    memo.set(key, items, input);
  if (keep !== undefined && input !== undefined) page = paginate(narrow(input), maxItemCount, continuation);
  return page;
}

/**
 * Executes a query with `@zeit/cosmosdb-query` semantics, including the rewritten ORDER BY and
 * aggregate forms produced for the SDK's query plan. `documents` is the full set, or a
 * {@link DocumentSource} that may use the query's {@link CandidateFilter} to return fewer.
 */
export function runQuery(
  spec: QuerySpec,
  documents: unknown[] | DocumentSource,
  options: RunQueryOptions = {},
): QueryPage {
  if (typeof spec.query !== 'string') throw badRequest('The query text is missing.');
  const query = prepare(spec.query);
  const source: DocumentSource = typeof documents === 'function' ? documents : () => documents;
  try {
    // Hybrid search's statistics cover every document in scope, whatever the WHERE clause.
    const everything = options.prefilter === false || query.rewrite.kind === 'statistics';
    // A resumed ORDER BY runs as the query without its resume filter, whose rows are remembered between pages.
    const target = query.resume === undefined ? query : prepare(query.resume.baseText);
    const items = source(everything ? undefined : candidateFilter(target, spec));
    if (query.pipeline !== undefined) return runPipelinePaged(query, query.pipeline, spec, items, options);
    const continuation = decodeContinuation(options.continuation);
    if (query.rewrite.kind === 'aggregate') {
      const fn = query.shape.valueAggregate;
      if (fn === null) throw badRequest('The rewritten aggregate query has no aggregate.');
      return {
        items: aggregatePartial(
          fn,
          (f) => query.aggregate(f).run(items, { parameters: spec.parameters, udf: options.udf }).result[0],
        ),
      };
    }
    const page = runPaged(
      target,
      query.resume?.baseText ?? spec.query,
      spec,
      items,
      options,
      continuation,
      query.resume?.keep,
    );
    if (page.continuation !== null) return { items: page.result, continuation: JSON.stringify(page.continuation) };
    // A full page carries a continuation even when nothing follows, as the service's does; it leads to an empty page.
    const full =
      options.maxItemCount !== undefined && page.result.length > 0 && page.result.length === options.maxItemCount;
    return full
      ? { items: page.result, continuation: JSON.stringify({ token: PAST_THE_END }) }
      : { items: page.result };
  } catch (error) {
    if (isCosmosError(error)) throw error;
    throw badRequest(`The query could not be executed: ${(error as Error).message}`);
  }
}
