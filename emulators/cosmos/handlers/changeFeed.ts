import { badRequest } from '../errors/errorFactory.js';
import type { Reply } from '../http/reply.js';
import { json } from '../http/reply.js';
import type { RequestContext } from '../http/requestContext.js';
import { header } from '../http/requestContext.js';
import type { AccountStore } from '../store/accountStore.js';
import type { ChangeStart } from '../store/changeFeedIndex.js';
import type { ContainerRef } from './documents.js';
import { sessionToken } from './documents.js';
import { pageSize } from './feed.js';
import { requestScope } from './scope.js';

/** The `A-IM` value of the latest-version change feed (compared case-insensitively). */
const LATEST_VERSION = 'incremental feed';

/** True for a change feed read (`A-IM` set), of documents or of partition key ranges. */
export function isChangeFeedRequest(ctx: RequestContext): boolean {
  return header(ctx, 'a-im') !== undefined;
}

/**
 * Where the read starts, as the SDKs say it: `If-None-Match` with the ETag of an earlier answer (the
 * LSN it reached, quoted) or `*` for "from now"; else `If-Modified-Since` (an HTTP date) for changes
 * written since then; else the beginning.
 */
function startOf(ctx: RequestContext, currentLsn: number): ChangeStart | 'now' {
  const ifNoneMatch = header(ctx, 'if-none-match');
  if (ifNoneMatch !== undefined && ifNoneMatch !== '') {
    if (ifNoneMatch.trim() === '*') return 'now';
    const match = /^\s*"?(\d+)"?\s*$/.exec(ifNoneMatch);
    const lsn = match === null ? NaN : Number(match[1]);
    if (!Number.isSafeInteger(lsn) || lsn > currentLsn) {
      throw badRequest(`The change feed continuation (If-None-Match) ${ifNoneMatch} is not one this container issued; expected "*" or an ETag of an earlier change feed answer.`);
    }
    return { after: lsn };
  }
  const ifModifiedSince = header(ctx, 'if-modified-since');
  if (ifModifiedSince !== undefined && ifModifiedSince !== '') {
    const since = Date.parse(ifModifiedSince);
    if (Number.isNaN(since)) throw badRequest(`If-Modified-Since '${ifModifiedSince}' is not an HTTP date.`);
    return { since };
  }
  return { after: 0 };
}

/**
 * `GET .../docs` with `A-IM: Incremental Feed`: the latest version of each document changed after the
 * start, in modification order, at most `x-ms-max-item-count`; 200 with the page, or 304 when nothing
 * changed. Either way the `etag` header is the continuation. Deletes and expiry are not reported.
 */
export function readChangeFeed(ctx: RequestContext, ref: ContainerRef, store: AccountStore): Reply {
  const mode = header(ctx, 'a-im') ?? '';
  if (mode.trim().toLowerCase() !== LATEST_VERSION) {
    throw badRequest(`Change feed mode A-IM '${mode}' is not supported by this emulator; only latest-version mode ('Incremental Feed') is.`);
  }
  const state = store.container(ref.db, ref.coll);
  const scope = requestScope(ctx, state);
  const page = store.changeFeed(ref.db, ref.coll, scope, startOf(ctx, state.changes.lsn), pageSize(ctx));
  const headers: Record<string, string | number> = {
    etag: `"${page.continuation}"`,
    'x-ms-item-count': page.changes.length,
    'x-ms-session-token': sessionToken(store),
  };
  if (page.changes.length === 0) return { status: 304, headers };
  const documents = page.changes.map((doc) => ({ ...doc.body, _lsn: doc.lsn }));
  return json(200, { _rid: state.res._rid, Documents: documents, _count: documents.length }, headers);
}
