import type { Reply } from '../http/reply.js';
import { json } from '../http/reply.js';
import type { RequestContext } from '../http/requestContext.js';
import { jsonObjectBody } from '../http/requestContext.js';
import type { AccountStore } from '../store/accountStore.js';
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

/** `GET /dbs/{db}/colls/{coll}/pkranges`: one range covering the whole hash space. */
export function readPartitionKeyRanges(ctx: RequestContext, db: string, coll: string, store: AccountStore): Reply {
  const res = store.container(db, coll).res;
  const range = {
    id: '0',
    _rid: `${res._rid}AgAAAAAAAAA=`,
    _self: `${res._self}pkranges/0/`,
    _etag: '"00000000-0000-0000-0000-000000000000"',
    _ts: res._ts,
    minInclusive: '',
    maxExclusive: 'FF',
    ridPrefix: 0,
    throughputFraction: 1,
    status: 'online',
    parents: [],
    ownedArchivalPKRangeIds: [],
  };
  return feedReply(ctx, [range], 'PartitionKeyRanges', res._rid);
}
