import { badRequest } from '../errors/errorFactory.js';
import type { Reply } from '../http/reply.js';
import { json } from '../http/reply.js';
import type { RequestContext } from '../http/requestContext.js';
import { header } from '../http/requestContext.js';
import type { AccountStore } from '../store/accountStore.js';
import type { ChangeStart } from '../store/changeFeedIndex.js';
import { wireChange } from '../store/versionLog.js';
import type { ContainerRef } from './documents.js';
import { sessionToken } from './documents.js';
import { changeFeedCharge, storedSize } from '../requestCharge.js';
import { pageSize } from './feed.js';
import { requestScope } from './scope.js';

/** The `A-IM` values of the latest-version and the all-versions-and-deletes change feeds (compared case-insensitively). */
const LATEST_VERSION = 'incremental feed';
const ALL_VERSIONS = 'full-fidelity feed';

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
      throw badRequest(
        `The change feed continuation (If-None-Match) ${ifNoneMatch} is not one this container issued; expected "*" or an ETag of an earlier change feed answer.`,
      );
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
  if (mode.trim().toLowerCase() === ALL_VERSIONS) return readAllVersions(ctx, ref, store);
  if (mode.trim().toLowerCase() !== LATEST_VERSION) {
    throw badRequest(
      `Change feed mode A-IM '${mode}' is not one the service knows: 'Incremental Feed' (latest version) or 'Full-Fidelity Feed' (all versions and deletes).`,
    );
  }
  const state = store.container(ref.db, ref.coll);
  const scope = requestScope(ctx, state);
  const page = store.changeFeed(ref.db, ref.coll, scope, startOf(ctx, state.changes.lsn), pageSize(ctx));
  const headers: Record<string, string | number> = {
    etag: `"${page.continuation}"`,
    'x-ms-item-count': page.changes.length,
    'x-ms-session-token': sessionToken(store),
  };
  if (page.changes.length === 0) return { status: 304, headers, requestCharge: changeFeedCharge([]) };
  const documents = page.changes.map((doc) => ({ ...doc.body, _lsn: doc.lsn }));
  return {
    ...json(200, { _rid: state.res._rid, Documents: documents, _count: documents.length }, headers),
    requestCharge: changeFeedCharge(documents.map(storedSize)),
  };
}

/**
 * `GET .../docs` with `A-IM: Full-Fidelity Feed`: every create, replace and delete after the start, in LSN order,
 * for a container whose `changeFeedPolicy` keeps them (see `store/versionLog.ts`). As on the service it starts
 * from now or from a continuation only, never from the beginning or a point in time.
 */
function readAllVersions(ctx: RequestContext, ref: ContainerRef, store: AccountStore): Reply {
  const state = store.container(ref.db, ref.coll);
  const versions = state.changes.versions;
  if (versions === undefined) {
    throw badRequest(
      "The all versions and deletes change feed mode (A-IM 'Full-Fidelity Feed') needs a container whose changeFeedPolicy sets a retentionDuration.",
    );
  }
  const ifNoneMatch = header(ctx, 'if-none-match');
  if (ifNoneMatch === undefined || ifNoneMatch === '') {
    throw badRequest(
      'The all versions and deletes change feed mode starts from now or from a continuation, not from the beginning or a point in time.',
    );
  }
  const start = startOf(ctx, state.changes.lsn);
  const after = start !== 'now' && 'after' in start ? start.after : state.changes.lsn;
  const scope = requestScope(ctx, state);
  const page = versions.read(
    after,
    pageSize(ctx),
    (entry) => (scope.pk === undefined || entry.pk === scope.pk) && state.changes.holds(scope, entry.pk),
    state.changes.lsn,
  );
  const headers: Record<string, string | number> = {
    etag: `"${page.continuation}"`,
    'x-ms-item-count': page.entries.length,
    'x-ms-session-token': sessionToken(store),
  };
  if (page.entries.length === 0) return { status: 304, headers, requestCharge: changeFeedCharge([]) };
  const paths = state.res.partitionKey.paths;
  const keyOf = (pk: string): Record<string, unknown> =>
    Object.fromEntries((JSON.parse(pk) as unknown[]).map((value, i) => [(paths[i] ?? '').slice(1), value]));
  const documents = page.entries.map((entry) => wireChange(entry, keyOf(entry.pk)));
  return {
    ...json(200, { _rid: state.res._rid, Documents: documents, _count: documents.length }, headers),
    requestCharge: changeFeedCharge(documents.map(storedSize)),
  };
}
