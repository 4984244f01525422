import type { Reply } from '../http/reply.js';
import { headerPath, json } from '../http/reply.js';
import type { RequestContext } from '../http/requestContext.js';
import { flag, header, jsonObjectBody } from '../http/requestContext.js';
import type { AccountStore, ContainerState } from '../store/accountStore.js';
import type { ContainerResource, JsonObject } from '../store/types.js';
import { MetadataType } from '../store/metadataStore.js';
import { partitionKeyRangeRid } from '../store/resources.js';
import { isChangeFeedRequest } from './changeFeed.js';
import { feedReply } from './feed.js';
import { provisionThroughput, requestedThroughput } from './offers.js';
import type { Throughput } from './offers.js';
import { checkSearchPolicies, checkSearchPolicyChange } from './searchPolicies.js';
import { partitionsForThroughput } from './throughputPartitions.js';

/** `GET|POST(query) /dbs/{db}/colls`. */
export function listContainers(ctx: RequestContext, db: string, store: AccountStore): Reply {
  const rid = store.getDatabase(db)._rid;
  return feedReply(ctx, store.listContainers(db), 'DocumentCollections', rid);
}

/**
 * `POST /dbs/{db}/colls`: 201 with the container as the service completes it (see `containerDefinition.ts`),
 * and its throughput: what the request asks for, else 400 RU/s unless the database shares its own.
 */
export async function createContainer(ctx: RequestContext, db: string, store: AccountStore): Promise<Reply> {
  const res = await addContainer(store, db, jsonObjectBody(ctx), requestedThroughput(ctx));
  return json(201, res, { etag: res._etag });
}

/** Creates a container as {@link createContainer} does, from the body and throughput of its request. */
export async function addContainer(
  store: AccountStore,
  db: string,
  body: JsonObject,
  throughput: Throughput | undefined,
): Promise<ContainerResource> {
  checkSearchPolicies(body);
  const res = await store.createContainer(db, body, partitionsForThroughput(throughput));
  await provisionThroughput(store, res, throughput, true, store.getDatabase(db)._rid);
  return res;
}

/** Storage quota and usage as `x-ms-resource-quota`/`x-ms-resource-usage` report them (`name=value;…`, sizes in KB). */
function quotaHeaders(state: ContainerState, scripts: Record<string, number>): Record<string, string> {
  let bytes = 0;
  let count = 0;
  for (const partition of state.partitions.values()) {
    for (const doc of partition.values()) {
      bytes += Buffer.byteLength(JSON.stringify(doc.body));
      count += 1;
    }
  }
  const kb = Math.ceil(bytes / 1024);
  const line = (values: Record<string, number>): string =>
    `${Object.entries(values)
      .map(([k, v]) => `${k}=${v}`)
      .join(';')};`;
  return {
    'x-ms-resource-quota': line({
      functions: 25,
      storedProcedures: 100,
      triggers: 25,
      documentSize: 10240,
      documentsSize: 10485760,
      documentsCount: -1,
      collectionSize: 10485760,
    }),
    'x-ms-resource-usage': line({
      ...scripts,
      documentSize: 0,
      documentsSize: kb,
      documentsCount: count,
      collectionSize: kb,
    }),
  };
}

/**
 * `GET /dbs/{db}/colls/{coll}`. Indexing is synchronous here, so the index transformation is always complete
 * (100 %); with `x-ms-documentdb-populatequotainfo` the quota and usage headers come too.
 */
export function readContainer(ctx: RequestContext, db: string, coll: string, store: AccountStore): Reply {
  const state = store.container(db, coll);
  const res = state.res;
  const headers: Record<string, string | number> = {
    etag: res._etag,
    'x-ms-alt-content-path': headerPath('dbs', db),
    'x-ms-content-path': res._rid,
    'x-ms-documentdb-collection-index-transformation-progress': 100,
  };
  if (flag(ctx, 'x-ms-documentdb-populatequotainfo')) {
    const link = `dbs/${db}/colls/${coll}`;
    const count = (type: MetadataType): number => store.metadata.list(link, type).length;
    Object.assign(
      headers,
      quotaHeaders(state, {
        functions: count(MetadataType.UserDefinedFunctions),
        storedProcedures: count(MetadataType.StoredProcedures),
        triggers: count(MetadataType.Triggers),
      }),
    );
  }
  return json(200, res, headers);
}

/** `PUT /dbs/{db}/colls/{coll}`: replaces settings such as `defaultTtl` and the indexing policy. */
export async function replaceContainer(
  ctx: RequestContext,
  db: string,
  coll: string,
  store: AccountStore,
): Promise<Reply> {
  const body = jsonObjectBody(ctx);
  checkSearchPolicies(body);
  checkSearchPolicyChange(store.container(db, coll).res, body);
  const res = await store.replaceContainer(db, coll, body);
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
  if (isChangeFeedRequest(ctx) && header(ctx, 'if-none-match') === etag)
    return { status: 304, headers: { etag, 'x-ms-item-count': 0 } };
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
