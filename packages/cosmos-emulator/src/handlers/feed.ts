import type { Reply } from '../http/reply.js';
import { json } from '../http/reply.js';
import type { RequestContext } from '../http/requestContext.js';
import { header, jsonObjectBody } from '../http/requestContext.js';
import { runQuery } from '../query/queryEngine.js';
import type { QuerySpec } from '../query/queryEngine.js';

/** Default page size when the client does not send `x-ms-max-item-count` (or sends -1). */
const DEFAULT_PAGE_SIZE = 1000;

/** Page size from `x-ms-max-item-count`. */
export function pageSize(ctx: RequestContext): number {
  const raw = Number(header(ctx, 'x-ms-max-item-count'));
  return Number.isInteger(raw) && raw > 0 ? raw : DEFAULT_PAGE_SIZE;
}

/** True for a query request (`x-ms-documentdb-isquery` or the query content type). */
export function isQueryRequest(ctx: RequestContext): boolean {
  return (
    header(ctx, 'x-ms-documentdb-isquery')?.toLowerCase() === 'true' ||
    (header(ctx, 'content-type') ?? '').startsWith('application/query+json')
  );
}

/** Reads the query spec from a query request body. */
export function querySpec(ctx: RequestContext): QuerySpec {
  const body = jsonObjectBody(ctx);
  return { query: body['query'] as string, parameters: body['parameters'] as QuerySpec['parameters'] };
}

/**
 * A feed page (`{ _rid, <listKey>: [...], _count }`) of `items`, filtered by the posted query when the
 * request is a query, paged with `x-ms-max-item-count` / `x-ms-continuation`.
 */
export function feedReply(
  ctx: RequestContext,
  items: unknown[],
  listKey: string,
  rid: string,
  extraHeaders: Record<string, string | number> = {},
): Reply {
  const spec: QuerySpec = isQueryRequest(ctx) ? querySpec(ctx) : { query: 'SELECT * FROM root' };
  const page = runQuery(spec, items, { maxItemCount: pageSize(ctx), continuation: header(ctx, 'x-ms-continuation') });
  const headers: Record<string, string | number> = { 'x-ms-item-count': page.items.length, ...extraHeaders };
  if (page.continuation !== undefined) headers['x-ms-continuation'] = page.continuation;
  return json(200, { _rid: rid, [listKey]: page.items, _count: page.items.length }, headers);
}
