import { methodNotAllowed, notFound, notImplemented } from '../errors/errorFactory.js';
import { readAccount } from '../handlers/account.js';
import { executeBatch } from '../handlers/batch.js';
import { executeBulk, isBulkRequest } from '../handlers/bulk.js';
import { isChangeFeedRequest, readChangeFeed } from '../handlers/changeFeed.js';
import {
  createContainer,
  deleteContainer,
  listContainers,
  readContainer,
  readPartitionKeyRanges,
  replaceContainer,
} from '../handlers/containers.js';
import { createDatabase, deleteDatabase, listDatabases, readDatabase } from '../handlers/databases.js';
import {
  createOrUpsertDocument,
  deleteDocument,
  patchDocument,
  readDocument,
  readDocumentFeed,
  replaceDocument,
} from '../handlers/documents.js';
import { isQueryRequest } from '../handlers/feed.js';
import { queryDocuments, queryPlan } from '../handlers/query.js';
import { OperationKind } from '../operations.js';
import type { AccountStore } from '../store/accountStore.js';
import { routeMetadata } from './metadataRoutes.js';
import type { RouteEnv } from './metadataRoutes.js';
import type { Route } from './route.js';
import type { RequestContext } from './requestContext.js';
import { flag } from './requestContext.js';

function fail(ctx: RequestContext, operation: OperationKind = OperationKind.Unknown): Route {
  const path = `/${ctx.address.segments.join('/')}`;
  return {
    operation,
    handle: () => {
      // Attachments (a legacy resource under documents) are the one resource type of the API not served.
      if (ctx.address.segments[6] === 'attachments' || ctx.address.segments[0] === 'media')
        throw notImplemented('attachments');
      throw ctx.address.segments.length > 6 || !['dbs', 'colls', 'docs', 'pkranges'].includes(ctx.address.resourceType)
        ? notFound()
        : methodNotAllowed(ctx.method, path);
    },
  };
}

/**
 * Maps method + path to a handler. Paths: `/`, `/dbs[/db[/colls[/coll[/docs[/id]|/pkranges]]]]`, and the
 * metadata resources of `metadataRoutes.ts`.
 */
export function route(ctx: RequestContext, store: AccountStore, env: RouteEnv): Route {
  const metadata = routeMetadata(ctx, store, env);
  if (metadata !== undefined) return metadata;
  const [s0, db, s2, coll, s4, id] = ctx.address.segments;
  const n = ctx.address.segments.length;
  const m = ctx.method;
  if (n === 0) return m === 'GET' ? { operation: OperationKind.Account, handle: () => readAccount(ctx) } : fail(ctx);
  if (s0 !== 'dbs') return fail(ctx);
  if (n === 1) {
    if (m === 'GET' || (m === 'POST' && isQueryRequest(ctx)))
      return { operation: OperationKind.DatabaseList, handle: () => listDatabases(ctx, store) };
    if (m === 'POST') return { operation: OperationKind.DatabaseCreate, handle: () => createDatabase(ctx, store) };
    return fail(ctx);
  }
  if (db === undefined) return fail(ctx);
  if (n === 2) {
    if (m === 'GET') return { operation: OperationKind.DatabaseRead, handle: () => readDatabase(db, store) };
    if (m === 'DELETE') return { operation: OperationKind.DatabaseDelete, handle: () => deleteDatabase(db, store) };
    return fail(ctx);
  }
  if (s2 !== 'colls') return fail(ctx);
  if (n === 3) {
    if (m === 'GET' || (m === 'POST' && isQueryRequest(ctx)))
      return { operation: OperationKind.ContainerList, handle: () => listContainers(ctx, db, store) };
    if (m === 'POST')
      return { operation: OperationKind.ContainerCreate, handle: () => createContainer(ctx, db, store) };
    return fail(ctx);
  }
  if (coll === undefined) return fail(ctx);
  if (n === 4) {
    if (m === 'GET')
      return { operation: OperationKind.ContainerRead, handle: () => readContainer(ctx, db, coll, store) };
    if (m === 'PUT')
      return { operation: OperationKind.ContainerReplace, handle: () => replaceContainer(ctx, db, coll, store) };
    if (m === 'DELETE')
      return { operation: OperationKind.ContainerDelete, handle: () => deleteContainer(db, coll, store) };
    return fail(ctx);
  }
  const ref = { db, coll };
  if (s4 === 'pkranges' && n === 5) {
    return m === 'GET' || m === 'POST'
      ? { operation: OperationKind.PartitionKeyRanges, handle: () => readPartitionKeyRanges(ctx, db, coll, store) }
      : fail(ctx);
  }
  if (s4 !== 'docs') return fail(ctx);
  if (n === 5) {
    if (m === 'GET' && isChangeFeedRequest(ctx))
      return { operation: OperationKind.ChangeFeed, handle: () => readChangeFeed(ctx, ref, store) };
    if (m === 'GET') return { operation: OperationKind.ReadFeed, handle: () => readDocumentFeed(ctx, ref, store) };
    if (m !== 'POST') return fail(ctx);
    if (flag(ctx, 'x-ms-cosmos-is-query-plan-request'))
      return { operation: OperationKind.QueryPlan, handle: () => queryPlan(ctx, ref, store) };
    if (isQueryRequest(ctx))
      return { operation: OperationKind.Query, handle: () => queryDocuments(ctx, ref, store, env.scripts) };
    if (flag(ctx, 'x-ms-cosmos-is-batch-request') && isBulkRequest(ctx))
      return { operation: OperationKind.Bulk, handle: () => executeBulk(ctx, ref, store) };
    if (flag(ctx, 'x-ms-cosmos-is-batch-request'))
      return { operation: OperationKind.Batch, handle: () => executeBatch(ctx, ref, store) };
    const upsert = flag(ctx, 'x-ms-documentdb-is-upsert');
    return {
      operation: upsert ? OperationKind.Upsert : OperationKind.Create,
      handle: () => createOrUpsertDocument(ctx, ref, store),
    };
  }
  if (id === undefined || n !== 6) return fail(ctx);
  switch (m) {
    case 'GET':
      return { operation: OperationKind.Read, handle: () => readDocument(ctx, ref, id, store) };
    case 'PUT':
      return { operation: OperationKind.Replace, handle: () => replaceDocument(ctx, ref, id, store) };
    case 'DELETE':
      return { operation: OperationKind.Delete, handle: () => deleteDocument(ctx, ref, id, store) };
    case 'PATCH':
      return { operation: OperationKind.Patch, handle: () => patchDocument(ctx, ref, id, store) };
    default:
      return fail(ctx);
  }
}
