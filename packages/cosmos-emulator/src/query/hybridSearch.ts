import { badRequest } from '../errors/errorFactory.js';
import { callName } from './astTools.js';
import type { AstNode } from './cosmosdbQuery.js';
import { compareValues } from './ordering.js';
import type { PipelineQuery } from './pipelineQuery.js';
import { rewriteText } from './rewrite.js';
import { searchContexts } from './searchFunctions.js';
import type { FullTextStatistics, SearchCall, SearchContext, SearchPolicies } from './searchFunctions.js';

/*
 * `ORDER BY RANK` (hybrid search) as the SDK runs it (`hybridQueryExecutionContext.js` in `@azure/cosmos`): the
 * plan's `hybridSearchQueryInfo` names a statistics query, answered per range with its document count and, per
 * FullTextScore component, its word count and the documents holding each term; the SDK sums them and writes the
 * sums into each component query's placeholders; every range then answers its best rows for that component with
 * all components' scores, and the SDK fuses the components' ranks (RRF, k = 60) and applies skip and take.
 */

const PLACEHOLDER = 'documentdb-formattablehybridsearchquery';
const DOCUMENT_COUNT = `{${PLACEHOLDER}-totaldocumentcount}`;

/** Similarity functions rank high scores first; so does FullTextScore; euclidean distance ranks low first. */
function bestFirstDescending(expression: AstNode, context: SearchContext | undefined): boolean {
  if (callName(expression) === 'FULLTEXTSCORE') return true;
  return (context?.distanceFunction ?? 'cosine').toLowerCase() !== 'euclidean';
}

/** The context of the search call that is a component's expression. */
function contextOf(q: PipelineQuery, contexts: SearchContext[], expression: AstNode): SearchContext | undefined {
  return contexts[q.searchCalls.findIndex((c) => c.node === expression)];
}

/** The plan of an ORDER BY RANK query. @throws 400 without TOP or OFFSET LIMIT, which the service requires too. */
export function hybridPlan(
  q: PipelineQuery,
  sql: string,
  policies: SearchPolicies,
  bounds: { top: number | null; offset: number | null; limit: number | null },
): Record<string, unknown> {
  const take = bounds.top ?? bounds.limit;
  if (take === null) throw badRequest('ORDER BY RANK needs TOP or OFFSET … LIMIT.');
  const skip = bounds.offset ?? 0;
  const contexts = searchContexts(q.searchCalls, policies, []);
  const fullText = q.orderBy.flatMap((o, i) => (callName(o.expression) === 'FULLTEXTSCORE' ? [i] : []));
  const statistics = [
    DOCUMENT_COUNT,
    ...fullText.map((i) => `${i}:{${PLACEHOLDER}-totalwordcount-${i}}:{${PLACEHOLDER}-hitcountsarray-${i}}`),
  ].join(';');
  const componentQueryInfos = q.orderBy.map((o, i) => ({
    distinctType: 'None',
    top: skip + take,
    offset: null,
    limit: null,
    orderBy: [bestFirstDescending(o.expression, contextOf(q, contexts, o.expression)) ? 'Descending' : 'Ascending'],
    orderByExpressions: [o.text],
    groupByExpressions: [],
    groupByAliases: [],
    aggregates: [],
    groupByAliasToAggregateType: {},
    dCountInfo: null,
    rewrittenQuery: rewriteText('pipeline', sql, { component: String(i), ...(fullText.length > 0 && { statistics }) }),
    hasSelectValue: false,
    hasNonStreamingOrderBy: true,
  }));
  return {
    globalStatisticsQuery: rewriteText('statistics', sql),
    componentQueryInfos,
    componentWeights: q.rankWeights ?? [],
    projectionQueryInfo: null,
    skip: bounds.offset,
    take,
    requiresGlobalStatistics: fullText.length > 0,
  };
}

/** The FullTextScore calls of the ranking, in component order. */
const fullTextCalls = (q: PipelineQuery): SearchCall[] =>
  q.orderBy.flatMap((o) => q.searchCalls.filter((c) => c.node === o.expression && c.fn === 'FULLTEXTSCORE'));

/** A range's answer to the statistics query: its documents, and per FullTextScore component its words and hits. */
export function statisticsRow(q: PipelineQuery, documents: unknown[], policies: SearchPolicies): unknown {
  const contexts = searchContexts(q.searchCalls, policies, documents);
  const fullTextStatistics = fullTextCalls(q).map((call) => {
    const stats = contexts[q.searchCalls.indexOf(call)]?.statistics;
    return { totalWordCount: stats?.totalWordCount ?? 0, hitCounts: stats?.hitCounts ?? [] };
  });
  return { documentCount: documents.length, fullTextStatistics };
}

/** The statistics the SDK wrote into a component query's header, by FullTextScore call. */
export function statisticsFromHeader(
  q: PipelineQuery,
  header: string | undefined,
): ((call: SearchCall) => FullTextStatistics | undefined) | undefined {
  if (header === undefined) return undefined;
  const [count, ...parts] = header.split(';');
  const documentCount = Number(count);
  const byComponent = new Map<number, FullTextStatistics>();
  for (const part of parts) {
    const [index, words, hits] = part.split(':');
    let hitCounts: unknown;
    try {
      hitCounts = JSON.parse(hits ?? '');
    } catch {
      hitCounts = undefined;
    }
    if (!Number.isFinite(documentCount) || !Array.isArray(hitCounts))
      throw badRequest('The hybrid search statistics of the rewritten query are malformed.');
    byComponent.set(Number(index), { documentCount, totalWordCount: Number(words), hitCounts: hitCounts as number[] });
  }
  return (call) => byComponent.get(q.orderBy.findIndex((o) => o.expression === call.node));
}

type Row = Record<string, unknown>;

/**
 * Ranks rows (with component scores `o<i>`): for one component, the range's best rows for it with every
 * component's score (`component` set, partial); else the fused ranking of the whole query. Rows no full-text
 * component matches are left out.
 */
export function rankRows(
  q: PipelineQuery,
  rows: Row[],
  contexts: SearchContext[],
  component: number | undefined,
): unknown[] {
  const components = q.orderBy.map((o, i) => ({
    key: `o${i}`,
    descending: bestFirstDescending(o.expression, contextOf(q, contexts, o.expression)),
    fullText: callName(o.expression) === 'FULLTEXTSCORE',
  }));
  const usable = (row: Row, i: number): boolean => {
    const c = components[i];
    const score = c === undefined ? undefined : row[c.key];
    return typeof score === 'number' && !(c?.fullText === true && score === 0);
  };
  const best = (i: number): Row[] => {
    const c = components[i];
    const sign = c?.descending === true ? -1 : 1;
    return rows
      .filter((r) => usable(r, i))
      .sort((a, b) => sign * compareValues(a[c?.key ?? ''], b[c?.key ?? '']) || compareValues(a['r'], b['r']));
  };
  if (component !== undefined) {
    return best(component).map((r) => {
      const scores = components.map((c) => r[c.key]);
      const payload = r['p'];
      const head = { _rid: r['r'], orderByItems: [{ item: r[components[component]?.key ?? ''] }] };
      // The SDK reads the row back as `{ payload: { payload, componentScores } }` (`hybridSearchQueryResult.js`).
      if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
        throw badRequest(
          'ORDER BY RANK across partitions needs each result to be an object; SELECT VALUE of a scalar or array cannot be ranked.',
        );
      }
      return { ...head, payload: { payload, componentScores: scores } };
    });
  }
  // Reciprocal rank fusion: each component contributes weight / (60 + rank).
  const fused = new Map<Row, number>();
  components.forEach((_, i) => {
    best(i).forEach((row, rank) => fused.set(row, (fused.get(row) ?? 0) + (q.rankWeights?.[i] ?? 1) / (60 + rank + 1)));
  });
  return [...fused.entries()]
    .sort((a, b) => b[1] - a[1] || compareValues(a[0]['r'], b[0]['r']))
    .map(([row]) => row['p']);
}
