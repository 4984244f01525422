import { badRequest, partitionKeyMissing } from '../errors/errorFactory.js';
import type { Reply } from '../http/reply.js';
import { errorReply, headerPath, json } from '../http/reply.js';
import type { RequestContext } from '../http/requestContext.js';
import { flag, header, jsonBody, jsonObjectBody } from '../http/requestContext.js';
import type { AccountStore } from '../store/accountStore.js';
import type { DocumentOperation } from '../store/documentOps.js';
import { toPatchBody } from '../store/patch.js';
import { partitionKeyFromHeader } from '../store/partitionKey.js';
import { CHARGE_CONSTANTS, operationCharge, queryCharge, storedSize, writtenBytes } from '../requestCharge.js';
import { feedReply } from './feed.js';
import { requestScope } from './scope.js';

/** Names a container inside the account. */
export interface ContainerRef {
  db: string;
  coll: string;
}

/** Session token in the `<pkRangeId>:<version>#<lsn>` form the SDK's session container parses. */
export function sessionToken(store: AccountStore): string {
  return `0:-1#${store.currentLsn}`;
}

/** The id of the partition key range that serves a partition key, as point operations report it. */
function partitionKeyRangeOf(store: AccountStore, ref: ContainerRef, pk: string): string {
  const { changes } = store.container(ref.db, ref.coll);
  return changes.ranges[changes.locate(pk).range]?.id ?? '0';
}

/** The request's partition key (canonical form). @throws 400 when absent. */
export function requiredPartitionKey(ctx: RequestContext, ref: ContainerRef, store: AccountStore): string {
  const definition = store.container(ref.db, ref.coll).res.partitionKey;
  const pk = partitionKeyFromHeader(header(ctx, 'x-ms-documentdb-partitionkey'), definition);
  if (pk === undefined) throw partitionKeyMissing();
  return pk;
}

function conditions(ctx: RequestContext): { ifMatch?: string; ifNoneMatch?: string } {
  const ifMatch = header(ctx, 'if-match');
  const ifNoneMatch = header(ctx, 'if-none-match');
  return { ...(ifMatch !== undefined && { ifMatch }), ...(ifNoneMatch !== undefined && { ifNoneMatch }) };
}

async function runSingle(
  ctx: RequestContext,
  ref: ContainerRef,
  store: AccountStore,
  op: DocumentOperation,
): Promise<Reply> {
  const pk = requiredPartitionKey(ctx, ref, store);
  const [result] = await store.execute(ref.db, ref.coll, pk, [op]);
  if (result === undefined) throw badRequest('No operation was executed.');
  const headers: Record<string, string | number> = {
    'x-ms-session-token': sessionToken(store),
    'x-ms-alt-content-path': headerPath('dbs', ref.db, 'colls', ref.coll),
  };
  if (!result.ok) {
    const reply = errorReply(result.error);
    return { ...reply, headers: { ...reply.headers, ...headers }, requestCharge: CHARGE_CONSTANTS.refusedOperation };
  }
  const { status, doc } = result.outcome;
  const size = doc === undefined ? undefined : storedSize(doc.body);
  const charged = { requestCharge: operationCharge(op.kind, size), bytesWritten: writtenBytes(op.kind, size) };
  if (doc !== undefined) headers['etag'] = doc.body._etag;
  headers['x-ms-documentdb-partitionkeyrangeid'] = partitionKeyRangeOf(store, ref, pk);
  if (status === 204 || status === 304) return { status, headers, ...charged };
  return { ...json(status, doc?.body, headers), ...charged };
}

/** `POST .../docs` (create, or upsert with `x-ms-documentdb-is-upsert`). */
export function createOrUpsertDocument(ctx: RequestContext, ref: ContainerRef, store: AccountStore): Promise<Reply> {
  const body = jsonObjectBody(ctx);
  const op: DocumentOperation = flag(ctx, 'x-ms-documentdb-is-upsert')
    ? { kind: 'upsert', body, ...pick(conditions(ctx), 'ifMatch') }
    : { kind: 'create', body };
  return runSingle(ctx, ref, store, op);
}

/** `GET .../docs/{id}` (304 on a matching `If-None-Match`). */
export function readDocument(ctx: RequestContext, ref: ContainerRef, id: string, store: AccountStore): Promise<Reply> {
  return runSingle(ctx, ref, store, { kind: 'read', id, ...pick(conditions(ctx), 'ifNoneMatch') });
}

/** `PUT .../docs/{id}` (412 on a stale `If-Match`). */
export function replaceDocument(
  ctx: RequestContext,
  ref: ContainerRef,
  id: string,
  store: AccountStore,
): Promise<Reply> {
  return runSingle(ctx, ref, store, {
    kind: 'replace',
    id,
    body: jsonObjectBody(ctx),
    ...pick(conditions(ctx), 'ifMatch'),
  });
}

/** `DELETE .../docs/{id}`: 204. */
export function deleteDocument(
  ctx: RequestContext,
  ref: ContainerRef,
  id: string,
  store: AccountStore,
): Promise<Reply> {
  return runSingle(ctx, ref, store, { kind: 'delete', id, ...pick(conditions(ctx), 'ifMatch') });
}

/** `PATCH .../docs/{id}` with `{ operations, condition? }`. */
export function patchDocument(ctx: RequestContext, ref: ContainerRef, id: string, store: AccountStore): Promise<Reply> {
  return runSingle(ctx, ref, store, {
    kind: 'patch',
    id,
    patch: toPatchBody(jsonBody<unknown>(ctx)),
    ...pick(conditions(ctx), 'ifMatch'),
  });
}

/** `GET .../docs`: read feed, optionally scoped to the partition key (or range) headers. */
export function readDocumentFeed(ctx: RequestContext, ref: ContainerRef, store: AccountStore): Reply {
  const state = store.container(ref.db, ref.coll);
  const docs = store.documents(ref.db, ref.coll, requestScope(ctx, state)).map((d) => d.body);
  const reply = feedReply(ctx, docs, 'Documents', state.res._rid, { 'x-ms-session-token': sessionToken(store) });
  const page = (reply.body as { Documents: unknown[] }).Documents;
  return { ...reply, requestCharge: queryCharge(page.map(storedSize)) };
}

function pick<K extends 'ifMatch' | 'ifNoneMatch'>(
  c: { ifMatch?: string; ifNoneMatch?: string },
  key: K,
): Partial<Record<K, string>> {
  const value = c[key];
  return value === undefined ? {} : ({ [key]: value } as Partial<Record<K, string>>);
}
