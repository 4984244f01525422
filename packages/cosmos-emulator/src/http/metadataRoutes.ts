import { methodNotAllowed, notFound } from '../errors/errorFactory.js';
import { isQueryRequest } from '../handlers/feed.js';
import {
  CLIENT_ENCRYPTION_KEYS,
  containerOwner,
  databaseOwner,
  permissionsKind,
  STORED_PROCEDURES,
  TRIGGERS,
  USER_DEFINED_FUNCTIONS,
  userOwner,
  USERS,
} from '../handlers/metadataKinds.js';
import {
  createMetadata,
  deleteMetadata,
  listMetadata,
  readMetadata,
  replaceMetadata,
} from '../handlers/metadataResources.js';
import type { Feed, MetadataKind, Owner } from '../handlers/metadataResources.js';
import { listOffers, readOffer, replaceOffer } from '../handlers/offers.js';
import { deletePartition, executeProcedure, requestedTriggers, triggeredWrite } from '../handlers/scripts.js';
import { OperationKind } from '../operations.js';
import type { ScriptLimits } from '../scripts/scriptRun.js';
import type { AccountStore } from '../store/accountStore.js';
import { json } from './reply.js';
import type { RequestContext } from './requestContext.js';
import { flag } from './requestContext.js';
import type { Route } from './route.js';

/** What the routes below need besides the store. */
export interface RouteEnv {
  /** The account key (signs the resource tokens permissions hand out). */
  key: string;
  /** Limits of stored procedures, triggers and UDFs. */
  scripts: ScriptLimits;
}

const route = (operation: OperationKind, handle: Route['handle']): Route => ({ operation, handle });
const refuse = (ctx: RequestContext): Route =>
  route(OperationKind.Unknown, () => {
    throw methodNotAllowed(ctx.method, `/${ctx.address.segments.join('/')}`);
  });

/** CRUD routes of one metadata feed: `…/{type}` and `…/{type}/{id}`. */
function feedRoutes(ctx: RequestContext, store: AccountStore, feed: Feed, id: string | undefined): Route {
  const m = ctx.method;
  if (id === undefined) {
    if (m === 'GET' || (m === 'POST' && isQueryRequest(ctx)))
      return route(OperationKind.MetadataRead, () => listMetadata(ctx, feed, store));
    if (m === 'POST') return route(OperationKind.MetadataWrite, () => createMetadata(ctx, feed, store));
    return refuse(ctx);
  }
  if (m === 'GET') return route(OperationKind.MetadataRead, () => readMetadata(ctx, feed, id, store));
  if (m === 'PUT') return route(OperationKind.MetadataWrite, () => replaceMetadata(ctx, feed, id, store));
  if (m === 'DELETE') return route(OperationKind.MetadataWrite, () => deleteMetadata(ctx, feed, id, store));
  return refuse(ctx);
}

/** Operation kinds of document writes that may name triggers, by method. */
const TRIGGERED_OPERATIONS: Record<string, OperationKind> = {
  POST: OperationKind.Create,
  PUT: OperationKind.Replace,
  DELETE: OperationKind.Delete,
  PATCH: OperationKind.Patch,
};

const feedOf = (kind: MetadataKind, owner: () => Owner): Feed => ({ kind, owner });

/** The conflicts feed: this single-region emulator never has conflicts, so it is always empty. */
function conflictRoutes(
  ctx: RequestContext,
  store: AccountStore,
  db: string,
  coll: string,
  id: string | undefined,
): Route {
  if (id !== undefined)
    return route(OperationKind.MetadataRead, () => {
      store.container(db, coll);
      throw notFound('Conflict');
    });
  if (ctx.method !== 'GET' && !(ctx.method === 'POST' && isQueryRequest(ctx))) return refuse(ctx);
  return route(OperationKind.MetadataRead, () => {
    const rid = store.container(db, coll).res._rid;
    return json(200, { _rid: rid, Conflicts: [], _count: 0 }, { 'x-ms-item-count': 0 });
  });
}

/**
 * Routes for offers, users, permissions, client encryption keys, scripts, conflicts, triggered document
 * writes and partition key deletes; `undefined` for every other path (the router's own).
 */
export function routeMetadata(ctx: RequestContext, store: AccountStore, env: RouteEnv): Route | undefined {
  const [s0, db, s2, child, s4, id] = ctx.address.segments;
  const n = ctx.address.segments.length;
  if (s0 === 'offers' && n <= 2) {
    if (id === undefined && db === undefined) {
      return ctx.method === 'GET' || (ctx.method === 'POST' && isQueryRequest(ctx))
        ? route(OperationKind.MetadataRead, () => listOffers(ctx, store))
        : refuse(ctx);
    }
    const offerId = db ?? '';
    if (ctx.method === 'GET') return route(OperationKind.MetadataRead, () => readOffer(offerId, store));
    if (ctx.method === 'PUT') return route(OperationKind.MetadataWrite, () => replaceOffer(ctx, offerId, store));
    return refuse(ctx);
  }
  if (s0 !== 'dbs' || db === undefined) return undefined;
  if (n >= 3 && n <= 4 && (s2 === 'users' || s2 === 'clientencryptionkeys')) {
    const kind = s2 === 'users' ? USERS : CLIENT_ENCRYPTION_KEYS;
    return feedRoutes(
      ctx,
      store,
      feedOf(kind, () => databaseOwner(store, db)),
      child,
    );
  }
  if (child === undefined) return undefined;
  if (s2 === 'users' && n >= 5 && s4 === 'permissions' && n <= 6) {
    return feedRoutes(
      ctx,
      store,
      feedOf(permissionsKind(store, env.key), () => userOwner(store, db, child)),
      id,
    );
  }
  if (s2 !== 'colls' || n < 5 || n > 6) return undefined;
  const coll = child;
  const ref = { db, coll };
  const kinds: Record<string, MetadataKind> = {
    sprocs: STORED_PROCEDURES,
    triggers: TRIGGERS,
    udfs: USER_DEFINED_FUNCTIONS,
  };
  const kind = kinds[s4 ?? ''];
  if (kind !== undefined) {
    if (s4 === 'sprocs' && id !== undefined && ctx.method === 'POST') {
      return route(OperationKind.ExecuteStoredProcedure, () => executeProcedure(ctx, ref, id, store, env.scripts));
    }
    return feedRoutes(
      ctx,
      store,
      feedOf(kind, () => containerOwner(store, db, coll)),
      id,
    );
  }
  if (s4 === 'conflicts') return conflictRoutes(ctx, store, db, coll, id);
  if (s4 === 'operations' && id === 'partitionkeydelete' && ctx.method === 'POST') {
    return route(OperationKind.PartitionKeyDelete, () => deletePartition(ctx, ref, store));
  }
  const triggers = s4 === 'docs' ? requestedTriggers(ctx) : undefined;
  const special =
    isQueryRequest(ctx) || flag(ctx, 'x-ms-cosmos-is-batch-request') || flag(ctx, 'x-ms-cosmos-is-query-plan-request');
  const operation = TRIGGERED_OPERATIONS[ctx.method];
  if (triggers !== undefined && operation !== undefined && !special && (ctx.method === 'POST') === (id === undefined)) {
    const kind = ctx.method === 'POST' && flag(ctx, 'x-ms-documentdb-is-upsert') ? OperationKind.Upsert : operation;
    return route(kind, () => triggeredWrite(ctx, ref, id, store, env.scripts, triggers));
  }
  return undefined;
}
