import type { IncomingHttpHeaders } from 'node:http';
import { malformedJson } from '../errors/errorFactory.js';
import type { FaultInjector } from '../faults.js';

/** The resource a request path names, with the parts needed for signing and routing. */
export interface ResourceAddress {
  /** Decoded path segments, e.g. `['dbs', 'convoy', 'colls', 'orders', 'docs']`. */
  segments: string[];
  /** Resource type as signed by the SDK: the last collection segment (`docs`, `colls`, …) or `''`. */
  resourceType: string;
  /** Resource link as signed: the full path for an item, the parent path for a feed. */
  resourceLink: string;
}

/** One parsed request, handed to handlers. */
export interface RequestContext {
  method: string;
  address: ResourceAddress;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** `http://host:port` as the client addressed us. */
  origin: string;
  /** Faults that apply inside a request (to single operations of a bulk request). */
  faults?: FaultInjector;
}

/** Parses a request path into a {@link ResourceAddress}; `undefined` for undecodable paths. */
export function parseAddress(pathname: string): ResourceAddress | undefined {
  let segments: string[];
  try {
    segments = pathname
      .split('/')
      .filter((s) => s.length > 0)
      .map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
  if (segments.length === 0) return { segments, resourceType: '', resourceLink: '' };
  // `deleteAllItemsForPartitionKey` posts to the container's `operations/partitionkeydelete`, signed as the container.
  if (segments.length === 6 && segments[4] === 'operations')
    return { segments, resourceType: 'colls', resourceLink: segments.slice(0, 4).join('/') };
  const isItem = segments.length % 2 === 0;
  return {
    segments,
    resourceType: (isItem ? segments[segments.length - 2] : segments[segments.length - 1]) ?? '',
    resourceLink: (isItem ? segments : segments.slice(0, -1)).join('/'),
  };
}

/** A single header value (first one when repeated). */
export function header(ctx: RequestContext, name: string): string | undefined {
  const value = ctx.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** True when a boolean-ish header is set to true. */
export function flag(ctx: RequestContext, name: string): boolean {
  return header(ctx, name)?.toLowerCase() === 'true';
}

/** Parses the body as JSON. @throws CosmosError 400 when it is not JSON. */
export function jsonBody<T>(ctx: RequestContext): T {
  const text = ctx.body.toString('utf8');
  if (text.trim() === '') throw malformedJson('the body is empty.');
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw malformedJson((error as Error).message);
  }
}

/** Parses the body as a JSON object (not an array or scalar). */
export function jsonObjectBody(ctx: RequestContext): Record<string, unknown> {
  const value = jsonBody<unknown>(ctx);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw malformedJson('a JSON object was expected.');
  return value as Record<string, unknown>;
}
