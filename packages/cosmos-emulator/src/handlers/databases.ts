import type { Reply } from '../http/reply.js';
import { json } from '../http/reply.js';
import type { RequestContext } from '../http/requestContext.js';
import { jsonObjectBody } from '../http/requestContext.js';
import type { AccountStore } from '../store/accountStore.js';
import { feedReply } from './feed.js';
import { provisionThroughput, requestedThroughput } from './offers.js';

/** `GET|POST(query) /dbs`. */
export function listDatabases(ctx: RequestContext, store: AccountStore): Reply {
  return feedReply(ctx, store.listDatabases(), 'Databases', '');
}

/** `POST /dbs`: 201, or 409 when the id exists; provisions shared throughput when the request asks for it. */
export async function createDatabase(ctx: RequestContext, store: AccountStore): Promise<Reply> {
  const throughput = requestedThroughput(ctx);
  const res = await store.createDatabase(jsonObjectBody(ctx));
  if (throughput !== undefined) await provisionThroughput(store, res, throughput, false, res._rid);
  return json(201, res, { etag: res._etag });
}

/** `GET /dbs/{db}`. */
export function readDatabase(db: string, store: AccountStore): Reply {
  const res = store.getDatabase(db);
  return json(200, res, { etag: res._etag });
}

/** `DELETE /dbs/{db}`: 204. */
export async function deleteDatabase(db: string, store: AccountStore): Promise<Reply> {
  await store.deleteDatabase(db);
  return { status: 204 };
}
