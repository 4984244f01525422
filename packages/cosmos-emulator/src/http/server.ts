import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { RequestCounters } from '../counters.js';
import { isCosmosError } from '../errors/cosmosError.js';
import {
  badRequest,
  entityTooLarge,
  injectedStatus,
  internalError,
  serviceUnavailable,
  tooManyRequests,
} from '../errors/errorFactory.js';
import type { FaultInjector } from '../faults.js';
import { OperationKind, chargeKind } from '../operations.js';
import { resourceCharge } from '../requestCharge.js';
import type { AccountStore } from '../store/accountStore.js';
import { ADMIN_PREFIX, handleAdmin } from './adminRoutes.js';
import type { ScriptLimits } from '../scripts/scriptRun.js';
import { authorize } from './auth.js';
import type { Reply } from './reply.js';
import { errorReply, writeReply } from './reply.js';
import type { RequestContext } from './requestContext.js';
import { parseAddress } from './requestContext.js';
import { checkIntendedContainer, resolveResourceIds } from './resourceIds.js';
import { checkGrant } from './resourceTokens.js';
import { holdReply } from './replyLatency.js';
import { route } from './router.js';
import type { ThroughputBudget } from '../throughputBudget.js';
import type { TlsMaterial } from '@ledger-convoy/dev-certificate';

/** Requests larger than this are refused with 413 without being buffered (documents cap at 2 MiB). */
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

/** What the HTTP layer needs from the rest of the emulator. */
export interface HttpDependencies {
  store: AccountStore;
  key: string;
  counters: RequestCounters;
  faults: FaultInjector;
  /** Called with unexpected errors (500s), for logging. */
  onError?: (error: unknown) => void;
  /** Serve HTTPS with this key pair; plain HTTP when unset. */
  tls?: TlsMaterial;
  /** Limits of stored procedures, triggers and UDFs. */
  scripts: ScriptLimits;
  /** Request units a second each container serves (`--throughput`); unmetered when unset. */
  throughput?: { unitsPerSecond: number; budget: ThroughputBudget };
  /** Least time from a request's arrival to its reply, in ms, plus up to 10 % jitter (`--latency`); 0 = none. */
  latencyMs?: number;
}

/** Requests on a container's items, which its throughput pays for (metadata requests are metered apart on Azure). */
const METERED: ReadonlySet<OperationKind> = new Set([
  OperationKind.Create,
  OperationKind.Read,
  OperationKind.Replace,
  OperationKind.Upsert,
  OperationKind.Delete,
  OperationKind.Patch,
  OperationKind.Batch,
  OperationKind.Bulk,
  OperationKind.Query,
  OperationKind.ReadFeed,
  OperationKind.ChangeFeed,
  OperationKind.ExecuteStoredProcedure,
  OperationKind.PartitionKeyDelete,
]);

/** The container a metered request spends from (`db/coll` by name), or `undefined` for one no budget applies to. */
function meteredContainer(ctx: RequestContext, operation: OperationKind, deps: HttpDependencies): string | undefined {
  const [s0, db, s2, coll] = ctx.address.segments;
  if (deps.throughput === undefined || !METERED.has(operation) || s0 !== 'dbs' || s2 !== 'colls') return undefined;
  return db === undefined || coll === undefined ? undefined : JSON.stringify([db, coll]);
}

function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_REQUEST_BYTES) {
      resolve('too-large');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        resolve('too-large');
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * The resource path of a request target. The REST API has no query parameters, and the SDKs put ids in the
 * path with `encodeURI`, which leaves `?` as is: like the service, everything after the authority is the
 * path, so an id such as `a?b` is addressed as itself.
 */
function requestPath(target: string): string {
  const absolute = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(target);
  return absolute === null ? target : target.slice(absolute[0].length) || '/';
}

async function answer(req: IncomingMessage, res: ServerResponse, deps: HttpDependencies): Promise<void> {
  const address = parseAddress(requestPath(req.url ?? '/'));
  const body = await readBody(req);
  if (body === 'too-large') {
    // Stop reading the oversized body: answer and close this connection only.
    res.setHeader('connection', 'close');
    writeReply(res, errorReply(entityTooLarge()));
    res.on('finish', () => req.socket.destroy());
    return;
  }
  if (address === undefined) {
    writeReply(res, errorReply(badRequest('The request path is not valid.')));
    return;
  }
  const ctx: RequestContext = {
    method: (req.method ?? 'GET').toUpperCase(),
    address,
    headers: req.headers,
    body,
    origin: `${deps.tls === undefined ? 'http' : 'https'}://${req.headers.host ?? 'localhost'}`,
    faults: deps.faults,
  };
  if (address.segments[0] === ADMIN_PREFIX) {
    writeReply(res, handleAdmin(ctx, deps.counters, deps.faults));
    return;
  }
  const grant = authorize(ctx, deps.key);
  const resolved = resolveResourceIds(ctx, deps.store);
  const { operation, handle } = route(resolved, deps.store, { key: deps.key, scripts: deps.scripts });
  deps.counters.increment(operation);
  const fault = deps.faults.take(operation);
  if (fault?.mode === 'error') {
    writeReply(res, errorReply(injectedStatus(fault.status, fault.retryAfterMs)));
    return;
  }
  const metered = meteredContainer(resolved, operation, deps);
  const throughput = deps.throughput;
  if (metered !== undefined && throughput !== undefined) {
    const retryAfterMs = throughput.budget.admit(metered, throughput.unitsPerSecond);
    if (retryAfterMs !== undefined) {
      writeReply(res, errorReply(tooManyRequests(retryAfterMs)));
      return;
    }
  }
  let reply: Reply;
  try {
    if (grant !== undefined) checkGrant(resolved, grant, deps.store);
    checkIntendedContainer(resolved, deps.store);
    reply = await handle();
  } catch (error) {
    if (!isCosmosError(error)) throw error;
    reply = errorReply(error);
  }
  // Charged whether or not the client learns the outcome: the service did the work. The counters take what the
  // handlers charged (items, queries, feeds, batches), not the resource charges added below (README, "Request charges").
  deps.counters.charge(operation, reply.requestCharge ?? 0, reply.bytesWritten ?? 0);
  if (reply.requestCharge === undefined && reply.status < 400)
    reply = { ...reply, requestCharge: resourceCharge(chargeKind(operation), reply.status, reply.body) };
  if (metered !== undefined && throughput !== undefined)
    throughput.budget.spend(metered, throughput.unitsPerSecond, reply.requestCharge ?? 0);
  if (fault?.mode === 'commit-then-fail') {
    // The work is done (or failed) but the client must not learn which: the "unknown outcome" case.
    if (fault.reply === 'destroy') req.socket.destroy();
    else writeReply(res, errorReply(serviceUnavailable('Injected fault: the outcome of this request is unknown.')));
    return;
  }
  writeReply(res, reply);
}

/** Creates the emulator's HTTP server, or HTTPS server when `deps.tls` is set (not yet listening). */
export function createEmulatorServer(deps: HttpDependencies): Server | HttpsServer {
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    // Every reply of the service waits out the latency; the emulator's own routes (counters, faults) do not.
    const arrivedAt = performance.now();
    if (deps.latencyMs !== undefined && !requestPath(req.url ?? '/').startsWith(`/${ADMIN_PREFIX}`))
      holdReply(res, arrivedAt, { latencyMs: deps.latencyMs });
    answer(req, res, deps).catch((error: unknown) => {
      const cosmos = isCosmosError(error) ? error : internalError(error);
      if (!isCosmosError(error)) deps.onError?.(error);
      if (!res.headersSent && !res.destroyed) writeReply(res, errorReply(cosmos));
    });
  };
  const server =
    deps.tls === undefined
      ? createServer({ keepAlive: true }, listener)
      : createHttpsServer({ keepAlive: true, cert: deps.tls.certPem, key: deps.tls.keyPem }, listener);
  // Garbage on the socket: answer 400 when we still can, drop only that connection.
  server.on('clientError', (_error: Error, socket: Socket) => {
    if (socket.writable) {
      const body = JSON.stringify({ code: 'BadRequest', message: 'The request could not be parsed as HTTP.' });
      socket.end(
        `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    } else {
      socket.destroy();
    }
  });
  return server;
}
