import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { CosmosError } from '../errors/cosmosError.js';

/** What a handler answers; the server adds the headers every response carries. */
export interface Reply {
  status: number;
  /** JSON-serialised, or written as is when a Buffer (binary answers such as HybridRow batches). */
  body?: unknown;
  headers?: Record<string, string | number>;
  /**
   * Request units the request would charge on Azure (`x-ms-request-charge`, see `requestCharge.ts`); absent for
   * requests the model does not charge (metadata), which answer 0.
   */
  requestCharge?: number;
  /** Bytes of the items the request wrote, as stored (see `storedSize`), for the counters; absent = none. */
  bytesWritten?: number;
}

/**
 * A resource path for a response header such as `x-ms-alt-content-path`. Header values must be ASCII, so
 * names are percent-encoded as in the request URL (a non-ASCII database or container name would otherwise
 * fail the whole response).
 */
export function headerPath(...segments: string[]): string {
  return segments.map(encodeURIComponent).join('/');
}

/** Builds a JSON reply. */
export function json(status: number, body: unknown, headers: Record<string, string | number> = {}): Reply {
  return { status, body, headers };
}

/** Cosmos-shaped error reply: `{ code, message }` body plus `x-ms-substatus` (and retry hint). */
export function errorReply(error: CosmosError): Reply {
  const headers: Record<string, string | number> = { 'x-ms-substatus': error.substatus };
  if (error.retryAfterMs !== undefined) headers['x-ms-retry-after-ms'] = error.retryAfterMs;
  return { status: error.status, body: { code: error.code, message: error.message, ...error.extraBody }, headers };
}

/** Writes a reply with the headers the SDK reads on every response. */
export function writeReply(res: ServerResponse, reply: Reply): void {
  const payload =
    reply.body === undefined || reply.status === 204 || reply.status === 304
      ? ''
      : Buffer.isBuffer(reply.body)
        ? reply.body
        : JSON.stringify(reply.body);
  res.statusCode = reply.status;
  res.setHeader('content-type', 'application/json');
  res.setHeader('x-ms-activity-id', randomUUID());
  res.setHeader('x-ms-request-charge', reply.requestCharge ?? 0);
  res.setHeader('x-ms-gatewayversion', 'version=2.14.0');
  res.setHeader('x-ms-serviceversion', 'version=2.14.0.0');
  res.setHeader('x-ms-schemaversion', '1.16');
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  res.setHeader('content-length', Buffer.byteLength(payload));
  res.end(payload);
}
