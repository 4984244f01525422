import type { Reply } from '../http/reply.js';
import { json } from '../http/reply.js';
import type { RequestContext } from '../http/requestContext.js';
import { header, jsonObjectBody } from '../http/requestContext.js';
import type { AccountStore } from '../store/accountStore.js';
import { partitionKeyRangeRid } from '../store/resources.js';
import { isChangeFeedRequest } from './changeFeed.js';
import { feedReply } from './feed.js';

/** `GET|POST(query) /dbs/{db}/colls`. */
export function listContainers(ctx: RequestContext, db: string, store: AccountStore): Reply {
  const rid = store.getDatabase(db)._rid;
  return feedReply(ctx, store.listContainers(db), 'DocumentCollections', rid);
}

/** `POST /dbs/{db}/colls`: 201 (partition key, `defaultTtl`, indexing policy kept as sent). */
export async function createContainer(ctx: RequestContext, db: string, store: AccountStore): Promise<Reply> {
  const res = await store.createContainer(db, jsonObjectBody(ctx));
  return json(201, res, { etag: res._etag });
}

/** `GET /dbs/{db}/colls/{coll}`. */
export function readContainer(db: string, coll: string, store: AccountStore): Reply {
  const res = store.container(db, coll).res;
  return json(200, res, { etag: res._etag, 'x-ms-alt-content-path': `dbs/${db}`, 'x-ms-content-path': res._rid });
}

/** `PUT /dbs/{db}/colls/{coll}`: replaces settings such as `defaultTtl` and the indexing policy. */
export async function replaceContainer(ctx: RequestContext, db: string, coll: string, store: AccountStore): Promise<Reply> {
  const res = await store.replaceContainer(db, coll, jsonObjectBody(ctx));
  return json(200, res, { etag: res._etag });
}

/** `DELETE /dbs/{db}/colls/{coll}`: 204. */
export async function deleteContainer(db: string, coll: string, store: AccountStore): Promise<Reply> {
  await store.deleteContainer(db, coll);
  return { status: 204 };
}

/**
 * `GET /dbs/{db}/colls/{coll}/pkranges` (by name or rid): the container's ranges (see `--partition-key-ranges`). Read
 * as a change feed (`A-IM`, as the .NET SDK's routing map does) the ranges come once, then 304 under
 * their ETag: they never split.
 */
export function readPartitionKeyRanges(ctx: RequestContext, db: string, coll: string, store: AccountStore): Reply {
  const state = store.container(db, coll);
  const res = state.res;
  const etag = `"${state.changes.ranges.length}"`;
  if (isChangeFeedRequest(ctx) && header(ctx, 'if-none-match') === etag) return { status: 304, headers: { etag, 'x-ms-item-count': 0 } };
  const ranges = state.changes.ranges.map((range, i) => ({
    id: range.id,
    _rid: partitionKeyRangeRid(res._rid, range.id),
    _self: `${res._self}pkranges/${partitionKeyRangeRid(res._rid, range.id)}/`,
    _etag: '"00000000-0000-0000-0000-000000000000"',
    _ts: res._ts,
    minInclusive: range.minInclusive,
    maxExclusive: range.maxExclusive,
    ridPrefix: i,
    throughputFraction: 1 / state.changes.ranges.length,
    status: 'online',
    parents: [],
    ownedArchivalPKRangeIds: [],
  }));
  return feedReply(ctx, ranges, 'PartitionKeyRanges', res._rid, { etag });
}
