import { badRequest, crossPartitionQueryNeedsPlan } from '../errors/errorFactory.js';
import type { Reply } from '../http/reply.js';
import { json } from '../http/reply.js';
import type { RequestContext } from '../http/requestContext.js';
import { header } from '../http/requestContext.js';
import { needsPlan, runQuery } from '../query/queryEngine.js';
import type { CandidateFilter } from '../query/queryEngine.js';
import { buildQueryPlan } from '../query/queryPlan.js';
import type { SearchPolicies } from '../query/searchFunctions.js';
import { DEFAULT_SCRIPT_LIMITS } from '../scripts/scriptRun.js';
import type { ScriptLimits } from '../scripts/scriptRun.js';
import { withUdfs } from '../scripts/udfs.js';
import type { AccountStore } from '../store/accountStore.js';
import type { ContainerResource } from '../store/types.js';
import type { ContainerRef } from './documents.js';
import { sessionToken } from './documents.js';
import { queryCharge, storedSize } from '../requestCharge.js';
import { pageSize, querySpec } from './feed.js';
import { requestScope } from './scope.js';

/** `POST .../docs` with `x-ms-cosmos-is-query-plan-request`: the plan the SDK's pipeline follows. */
export function queryPlan(ctx: RequestContext, ref: ContainerRef, store: AccountStore): Reply {
  const state = store.container(ref.db, ref.coll);
  const spec = querySpec(ctx);
  if (typeof spec.query !== 'string') throw badRequest('The query text is missing.');
  return json(200, buildQueryPlan(spec.query, spec.parameters, searchPolicies(state.res)));
}

/** The container policies that search functions follow. */
function searchPolicies(res: ContainerResource): SearchPolicies {
  return { vectorEmbeddingPolicy: res['vectorEmbeddingPolicy'], fullTextPolicy: res['fullTextPolicy'] };
}

/**
 * `POST .../docs` with `x-ms-documentdb-isquery`. With a partition key header the query sees only that
 * partition. Without one (and without a partition key range id, which the SDK adds once it follows a
 * plan) queries that need the SDK's pipeline (ORDER BY, TOP, aggregates, DISTINCT, GROUP BY, OFFSET LIMIT…) are
 * refused with substatus 1004 and the plan attached, exactly the signal the SDK waits for before switching to its
 * cross-partition pipeline.
 */
export function queryDocuments(
  ctx: RequestContext,
  ref: ContainerRef,
  store: AccountStore,
  scripts: ScriptLimits = DEFAULT_SCRIPT_LIMITS,
): Reply {
  const state = store.container(ref.db, ref.coll);
  const spec = querySpec(ctx);
  if (typeof spec.query !== 'string') throw badRequest('The query text is missing.');
  const feed = requestScope(ctx, state);
  const targetsRange = feed.range !== undefined || feed.epk !== undefined;
  if (feed.pk === undefined && !targetsRange && needsPlan(spec.query)) {
    throw crossPartitionQueryNeedsPlan(
      JSON.stringify(buildQueryPlan(spec.query, spec.parameters, searchPolicies(state.res))),
    );
  }
  // Only this partition's (or range's) documents, or across partitions the index's candidates, reach the query.
  const source = (filter: CandidateFilter | undefined): unknown[] =>
    store.queryDocuments(ref.db, ref.coll, feed, filter).map((d) => d.body);
  const scope = `${ref.db}/${ref.coll}/${feed.pk ?? `range:${feed.range ?? '*'}:${feed.epk?.min ?? ''}:${feed.epk?.max ?? ''}`}`;
  const options = {
    maxItemCount: pageSize(ctx),
    continuation: header(ctx, 'x-ms-continuation'),
    scope,
    policies: searchPolicies(state.res),
  };
  const page = withUdfs(store, ref, scripts, spec.query, (udf) =>
    runQuery(spec, source, udf === undefined ? options : { ...options, udf }),
  );
  const headers: Record<string, string | number> = {
    'x-ms-item-count': page.items.length,
    'x-ms-session-token': sessionToken(store),
  };
  if (page.continuation !== undefined) headers['x-ms-continuation'] = page.continuation;
  return {
    ...json(200, { _rid: state.res._rid, Documents: page.items, _count: page.items.length }, headers),
    requestCharge: queryCharge(page.items.map(storedSize)),
  };
}
