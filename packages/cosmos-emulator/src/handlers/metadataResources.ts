import { conflict, notFound, preconditionFailed } from '../errors/errorFactory.js';
import type { Reply } from '../http/reply.js';
import { json } from '../http/reply.js';
import type { RequestContext } from '../http/requestContext.js';
import { flag, header, jsonObjectBody } from '../http/requestContext.js';
import type { AccountStore } from '../store/accountStore.js';
import { requireId } from '../store/containerDefinition.js';
import type { MetadataRecord, MetadataResource, MetadataType } from '../store/metadataStore.js';
import { epochSeconds, newEtag } from '../store/resources.js';
import type { JsonObject } from '../store/types.js';
import { feedReply } from './feed.js';

/*
 * Create, read, replace (renaming included), upsert, delete, list and query of the metadata resources that
 * belong to a database, a container or a user — one implementation, with a {@link MetadataKind} per type
 * for what differs (validation, rid, derived fields, how a resource is presented).
 */

/** The resource a feed belongs to. */
export interface Owner {
  /** Name-based link, the key of its feeds in the metadata store (`dbs/{db}`, `dbs/{db}/users/{user}`…). */
  link: string;
  /** Its `_self`, under which the children's `_self` links are built. */
  self: string;
  _rid: string;
}

/** What differs between metadata resource types. */
export interface MetadataKind {
  type: MetadataType;
  /** The feed's key in list/query answers (`Users`, `StoredProcedures`…). */
  listKey: string;
  /** The resource's name in error messages (`User`, `Trigger`…). */
  label: string;
  /** Links the service adds to each resource (`_permissions: 'permissions/'`). */
  links?: JsonObject;
  /** Checks a create/replace body (throwing 400) and returns it as stored. */
  validate(body: JsonObject, owner: Owner): JsonObject;
  /** A fresh `_rid` under the owner. */
  rid(owner: Owner): string;
  /** The resource as sent to the client (permissions add a fresh `_token`). @default as stored */
  present?(res: MetadataResource, ctx: RequestContext): JsonObject;
}

/** The owner's feed of one kind, as the handlers below address it. */
export interface Feed {
  kind: MetadataKind;
  /** Resolves the owner; throws 404 when it does not exist. Called again under the metadata lock for writes. */
  owner(): Owner;
}

const present = (feed: Feed, res: MetadataResource, ctx: RequestContext): JsonObject =>
  feed.kind.present?.(res, ctx) ?? res;

function found(store: AccountStore, feed: Feed, owner: Owner, id: string): MetadataResource {
  const res = store.metadata.get(owner.link, feed.kind.type, id);
  if (res === undefined) throw notFound(feed.kind.label);
  return res;
}

function checkIfMatch(ctx: RequestContext, res: MetadataResource): void {
  const ifMatch = header(ctx, 'if-match');
  if (ifMatch !== undefined && ifMatch !== '*' && ifMatch !== res._etag) throw preconditionFailed();
}

function build(feed: Feed, owner: Owner, body: JsonObject, rid: string): MetadataResource {
  const id = requireId(body);
  return {
    ...feed.kind.validate(body, owner),
    id,
    _rid: rid,
    _self: `${owner.self}${feed.kind.type}/${rid}/`,
    _etag: newEtag(),
    _ts: epochSeconds(Date.now()),
    ...feed.kind.links,
  };
}

const record = (owner: Owner, feed: Feed, id: string, res: MetadataResource | null): MetadataRecord => ({
  k: 'meta',
  parent: owner.link,
  type: feed.kind.type,
  id,
  res,
});

/** `GET|POST(query) …/{type}`: the owner's resources of that type. */
export function listMetadata(ctx: RequestContext, feed: Feed, store: AccountStore): Reply {
  const owner = feed.owner();
  const items = store.metadata.list(owner.link, feed.kind.type).map((res) => present(feed, res, ctx));
  return feedReply(ctx, items, feed.kind.listKey, owner._rid);
}

/** `POST …/{type}`: 201; 409 when the id is taken, unless upserting (`x-ms-documentdb-is-upsert`), which replaces (200). */
export async function createMetadata(ctx: RequestContext, feed: Feed, store: AccountStore): Promise<Reply> {
  const body = jsonObjectBody(ctx);
  const upsert = flag(ctx, 'x-ms-documentdb-is-upsert');
  const { res, status } = await store.changeMetadata(() => {
    const owner = feed.owner();
    const id = requireId(body);
    const existing = store.metadata.get(owner.link, feed.kind.type, id);
    if (existing !== undefined && !upsert) throw conflict(feed.kind.label);
    if (existing !== undefined) checkIfMatch(ctx, existing);
    const created = build(feed, owner, body, existing?._rid ?? feed.kind.rid(owner));
    return {
      records: [record(owner, feed, id, created)],
      result: { res: created, status: existing === undefined ? 201 : 200 },
    };
  });
  return json(status, present(feed, res, ctx), { etag: res._etag });
}

/** `GET …/{type}/{id}`; 304 when `If-None-Match` names its current ETag (or `*`). */
export function readMetadata(ctx: RequestContext, feed: Feed, id: string, store: AccountStore): Reply {
  const res = found(store, feed, feed.owner(), id);
  const ifNoneMatch = header(ctx, 'if-none-match');
  if (ifNoneMatch !== undefined && (ifNoneMatch === '*' || ifNoneMatch === res._etag))
    return { status: 304, headers: { etag: res._etag } };
  return json(200, present(feed, res, ctx), { etag: res._etag });
}

/** `PUT …/{type}/{id}`: replaces the resource; a different id in the body renames it (409 when that id is taken). */
export async function replaceMetadata(
  ctx: RequestContext,
  feed: Feed,
  id: string,
  store: AccountStore,
): Promise<Reply> {
  const body = jsonObjectBody(ctx);
  const res = await store.changeMetadata(() => {
    const owner = feed.owner();
    const current = found(store, feed, owner, id);
    checkIfMatch(ctx, current);
    const newId = requireId(body);
    if (newId !== id && store.metadata.get(owner.link, feed.kind.type, newId) !== undefined)
      throw conflict(feed.kind.label);
    const replaced = build(feed, owner, body, current._rid);
    return { records: [record(owner, feed, id, replaced)], result: replaced };
  });
  return json(200, present(feed, res, ctx), { etag: res._etag });
}

/** `DELETE …/{type}/{id}`: 204 (the resource's own children go with it). */
export async function deleteMetadata(ctx: RequestContext, feed: Feed, id: string, store: AccountStore): Promise<Reply> {
  await store.changeMetadata(() => {
    const owner = feed.owner();
    checkIfMatch(ctx, found(store, feed, owner, id));
    return { records: [record(owner, feed, id, null)], result: undefined };
  });
  return { status: 204 };
}
