import { badRequest } from '../errors/errorFactory.js';
import type { AccountStore } from '../store/accountStore.js';
import { isRidUnder, ridKind } from '../store/resources.js';
import type { RidKind } from '../store/resources.js';
import type { RequestContext } from './requestContext.js';
import { header } from './requestContext.js';

/*
 * The .NET SDK addresses some requests by resource id instead of by name: partition key ranges
 * (`GET dbs/{dbRid}/colls/{collRid}/pkranges`, from `PartitionKeyRangeCache`), collection reads from its
 * caches, and range-scoped requests whose `x-ms-documentdb-partitionkeyrangeid` is `{collRid},{rangeId}`.
 * This module turns such a request into the name-addressed one the router and handlers know, and gives the
 * signature check the resource link the SDK signs for it.
 */

const SEGMENT_KIND: Record<string, RidKind> = {
  dbs: 'database',
  colls: 'container',
  docs: 'document',
  pkranges: 'pkrange',
};

/**
 * The resource link the .NET SDK signs for a rid-addressed request: the last resource id of the link,
 * lower-cased (`AuthorizationHelper` lower-cases every link that is not name-based); `undefined` when the
 * link's last id is not a resource id of the type its path segment names.
 */
export function ridSignedLink(ctx: RequestContext): string | undefined {
  const parts = ctx.address.resourceLink.split('/');
  const id = parts[parts.length - 1];
  const type = parts[parts.length - 2];
  if (id === undefined || type === undefined || parts.length % 2 !== 0) return undefined;
  const kind = SEGMENT_KIND[type];
  return kind !== undefined && ridKind(id) === kind ? id.toLowerCase() : undefined;
}

/*
 * A name wins when a segment is both a name and a rid; an unknown id or rid is left as is, so the handler's
 * lookup answers 404. Rid lookups scan (the SDK sends them for metadata, rarely for documents).
 */

function databaseIdFor(store: AccountStore, segment: string): string {
  if (ridKind(segment) !== 'database') return segment;
  const databases = store.listDatabases();
  if (databases.some((d) => d.id === segment)) return segment;
  return databases.find((d) => d._rid === segment)?.id ?? segment;
}

function containerIdFor(store: AccountStore, db: string, segment: string): string {
  if (ridKind(segment) !== 'container') return segment;
  let containers: ReturnType<AccountStore['listContainers']>;
  try {
    containers = store.listContainers(db);
  } catch {
    return segment;
  }
  if (containers.some((c) => c.id === segment)) return segment;
  return (
    containers.find((c) => c._rid === segment && isRidUnder(segment, 'container', store.getDatabase(db)._rid))?.id ??
    segment
  );
}

function documentIdFor(store: AccountStore, db: string, coll: string, segment: string): string {
  if (ridKind(segment) !== 'document') return segment;
  let docs: ReturnType<AccountStore['documents']>;
  try {
    if (!isRidUnder(segment, 'document', store.container(db, coll).res._rid)) return segment;
    docs = store.documents(db, coll);
  } catch {
    return segment;
  }
  if (docs.some((d) => d.body.id === segment)) return segment;
  return docs.find((d) => d.body._rid === segment)?.body.id ?? segment;
}

/** `segments` (a name- or rid-based link split on `/`) with every database, container and document rid replaced by its name. */
export function resolveNames(segments: string[], store: AccountStore): string[] {
  const out = [...segments];
  if (out[0] === 'dbs' && out[1] !== undefined) {
    const db = (out[1] = databaseIdFor(store, out[1]));
    if (out[2] === 'colls' && out[3] !== undefined) {
      const coll = (out[3] = containerIdFor(store, db, out[3]));
      if (out[4] === 'docs' && out[5] !== undefined) out[5] = documentIdFor(store, db, coll, out[5]);
    }
  }
  return out;
}

/** The request with every resource id in its path replaced by the resource's name, and range headers normalised. */
export function resolveResourceIds(ctx: RequestContext, store: AccountStore): RequestContext {
  const segments = resolveNames(ctx.address.segments, store);
  const headers = { ...ctx.headers };
  // `{collRid},{rangeId}` (the SDK's PartitionKeyRangeIdentity header form) names the same range as `{rangeId}`.
  const range = header(ctx, 'x-ms-documentdb-partitionkeyrangeid');
  if (range?.includes(',') === true)
    headers['x-ms-documentdb-partitionkeyrangeid'] = range.slice(range.lastIndexOf(',') + 1);
  return { ...ctx, address: { ...ctx.address, segments }, headers };
}

/**
 * Encryption-enabled clients name the container they mean by rid (`x-ms-cosmos-intended-collection-rid`);
 * when the container was deleted and recreated under the same name since, the service answers 400/1024 so
 * the client refreshes its encryption policy instead of writing with a stale one.
 */
export function checkIntendedContainer(ctx: RequestContext, store: AccountStore): void {
  const intended = header(ctx, 'x-ms-cosmos-intended-collection-rid');
  const [s0, db, s2, coll] = ctx.address.segments;
  if (
    intended === undefined ||
    s0 !== 'dbs' ||
    s2 !== 'colls' ||
    db === undefined ||
    coll === undefined ||
    ctx.address.segments.length < 5
  )
    return;
  let rid: string;
  try {
    rid = store.container(db, coll).res._rid;
  } catch {
    return; // the handler answers 404
  }
  if (rid !== intended)
    throw badRequest(
      `The container '${coll}' is not the one the request was prepared for (resource id ${intended}); it was recreated.`,
      1024,
    );
}
