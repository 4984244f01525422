import type { Reply } from '../http/reply.js';
import { headerPath, json } from '../http/reply.js';
import type { RequestContext } from '../http/requestContext.js';
import { flag, header, jsonBody, jsonObjectBody } from '../http/requestContext.js';
import { executeStoredProcedure } from '../scripts/storedProcedure.js';
import type { ScriptLimits } from '../scripts/scriptRun.js';
import { executeWithTriggers } from '../scripts/triggers.js';
import type { TriggerNames } from '../scripts/triggers.js';
import type { AccountStore } from '../store/accountStore.js';
import type { DocumentOperation } from '../store/documentOps.js';
import type { ContainerRef } from './documents.js';
import { requiredPartitionKey, sessionToken } from './documents.js';

/** The triggers a document write names in its headers, or undefined when it names none. */
export function requestedTriggers(ctx: RequestContext): TriggerNames | undefined {
  const list = (name: string): string[] =>
    (header(ctx, name) ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
  const pre = list('x-ms-documentdb-pre-trigger-include');
  const post = list('x-ms-documentdb-post-trigger-include');
  return pre.length === 0 && post.length === 0 ? undefined : { pre, post };
}

/** A stored procedure's arguments from the request body: a JSON array, one value, or none. */
function procedureArguments(ctx: RequestContext): unknown[] {
  if (ctx.body.toString('utf8').trim() === '') return [];
  const body = jsonBody<unknown>(ctx);
  if (body === null) return [];
  return Array.isArray(body) ? body : [body];
}

/**
 * `POST …/sprocs/{id}`: runs the stored procedure in the request's partition and answers its response body
 * (JSON); with `x-ms-documentdb-script-enable-logging` its `console.log` lines come back, URL-encoded, in
 * `x-ms-documentdb-script-log-results`.
 */
export async function executeProcedure(
  ctx: RequestContext,
  ref: ContainerRef,
  id: string,
  store: AccountStore,
  limits: ScriptLimits,
): Promise<Reply> {
  const pk = requiredPartitionKey(ctx, ref, store);
  const logging = flag(ctx, 'x-ms-documentdb-script-enable-logging');
  const result = await executeStoredProcedure(store, { ...ref, pk }, id, procedureArguments(ctx), { limits, logging });
  const headers: Record<string, string | number> = { 'x-ms-session-token': sessionToken(store) };
  if (logging) headers['x-ms-documentdb-script-log-results'] = encodeURIComponent(result.logs.join('\n'));
  return json(200, result.body, headers);
}

/** `POST …/operations/partitionkeydelete`: deletes every document of the request's partition key (at once, where the service works in the background). */
export async function deletePartition(ctx: RequestContext, ref: ContainerRef, store: AccountStore): Promise<Reply> {
  const pk = requiredPartitionKey(ctx, ref, store);
  await store.transact(ref.db, ref.coll, pk, (txn) => {
    for (const doc of txn.documents()) txn.apply({ kind: 'delete', id: doc.body.id });
  });
  return { status: 200, headers: { 'x-ms-session-token': sessionToken(store) } };
}

/**
 * A document write that names triggers (create, upsert, replace or delete with
 * `x-ms-documentdb-pre-trigger-include`/`…-post-trigger-include`): the write and its triggers as one transaction.
 */
export async function triggeredWrite(
  ctx: RequestContext,
  ref: ContainerRef,
  id: string | undefined,
  store: AccountStore,
  limits: ScriptLimits,
  names: TriggerNames,
): Promise<Reply> {
  const pk = requiredPartitionKey(ctx, ref, store);
  const ifMatch = header(ctx, 'if-match');
  const condition = ifMatch === undefined ? {} : { ifMatch };
  let op: DocumentOperation;
  if (ctx.method === 'POST')
    op = flag(ctx, 'x-ms-documentdb-is-upsert')
      ? { kind: 'upsert', body: jsonObjectBody(ctx), ...condition }
      : { kind: 'create', body: jsonObjectBody(ctx) };
  else if (ctx.method === 'PUT' && id !== undefined)
    op = { kind: 'replace', id, body: jsonObjectBody(ctx), ...condition };
  else if (ctx.method === 'DELETE' && id !== undefined) op = { kind: 'delete', id, ...condition };
  else op = { kind: 'patch', id: id ?? '', patch: { operations: [] } };
  const outcome = await executeWithTriggers(store, { ...ref, pk }, op, names, limits);
  const headers: Record<string, string | number> = {
    'x-ms-session-token': sessionToken(store),
    'x-ms-alt-content-path': headerPath('dbs', ref.db, 'colls', ref.coll),
  };
  if (outcome.doc !== undefined) headers['etag'] = outcome.doc.body._etag;
  if (outcome.status === 204) return { status: 204, headers };
  return json(outcome.status, outcome.body, headers);
}
