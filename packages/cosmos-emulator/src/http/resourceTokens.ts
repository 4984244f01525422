import { createHmac, timingSafeEqual } from 'node:crypto';
import { forbidden, unauthorized } from '../errors/errorFactory.js';
import { isQueryRequest } from '../handlers/feed.js';
import type { AccountStore } from '../store/accountStore.js';
import { partitionKeyFromHeader } from '../store/partitionKey.js';
import type { RequestContext } from './requestContext.js';
import { header } from './requestContext.js';
import { resolveNames } from './resourceIds.js';

/*
 * Resource tokens: what a permission grants, as a credential a client can hold instead of the account key.
 * The token carries its grant (the permission's mode, resource link, partition key and expiry) signed with
 * the account key, so checking one needs no lookup; like the service's tokens they expire (one hour unless
 * the permission was read with `x-ms-documentdb-expiry-seconds`, at most five).
 */

/** What a resource token allows. */
export interface ResourceGrant {
  /** `Read` (reads and queries) or `All`. */
  mode: 'Read' | 'All';
  /** The permission's resource link as given (name- or rid-based), e.g. `dbs/db/colls/orders`. */
  resource: string;
  /** Canonical partition key (JSON array) the grant is limited to, for documents; absent when not limited. */
  partitionKey?: string;
  /** Epoch seconds after which the token is refused. */
  expiresAt: number;
}

/** Default and largest token lifetimes, in seconds. */
export const TOKEN_LIFETIME = { defaultSeconds: 3600, maxSeconds: 18000 } as const;

const encode = (value: Buffer | string): string => Buffer.from(value).toString('base64url');

function mac(payload: string, key: string): Buffer {
  return createHmac('sha256', Buffer.from(key, 'base64')).update(`resource-token\n${payload}`).digest();
}

/** The `_token` of a permission: `type=resource&ver=1.0&sig=<grant>.<mac>`. */
export function issueResourceToken(grant: ResourceGrant, key: string): string {
  const payload = encode(JSON.stringify(grant));
  return `type=resource&ver=1.0&sig=${payload}.${encode(mac(payload, key))}`;
}

/** The grant a token's `sig` carries. @throws 401 when it is forged, malformed or expired. */
export function readResourceToken(sig: string, key: string, nowSeconds = Date.now() / 1000): ResourceGrant {
  const [payload, given, extra] = sig.split('.');
  if (payload === undefined || given === undefined || extra !== undefined)
    throw unauthorized('The resource token is malformed.');
  const expected = mac(payload, key);
  const actual = Buffer.from(given, 'base64url');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected))
    throw unauthorized('The resource token was not issued by this account.');
  const grant = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as ResourceGrant;
  if (grant.expiresAt < nowSeconds)
    throw unauthorized('The resource token has expired; read the permission again for a fresh one.');
  return grant;
}

const isPrefix = (prefix: string[], of: string[]): boolean =>
  prefix.length <= of.length && prefix.every((s, i) => s === of[i]);

/**
 * Refuses (403) a request the grant does not cover. The request path (names) must be the granted resource
 * or lie under it; `Read` allows reads and queries only; a grant limited to a partition key allows document
 * and stored procedure requests for that key only. Any valid token may read the account itself.
 */
export function checkGrant(ctx: RequestContext, grant: ResourceGrant, store: AccountStore): void {
  const segments = ctx.address.segments;
  if (segments.length === 0) {
    if (ctx.method === 'GET') return;
    throw forbidden('A resource token cannot change the account.');
  }
  const granted = resolveNames(
    grant.resource.split('/').filter((s) => s.length > 0),
    store,
  );
  if (!isPrefix(granted, segments)) {
    throw forbidden(`The resource token grants access to '${granted.join('/')}' only, not '${segments.join('/')}'.`);
  }
  const reads = ctx.method === 'GET' || ctx.method === 'HEAD' || (ctx.method === 'POST' && isQueryRequest(ctx));
  if (grant.mode === 'Read' && !reads) throw forbidden(`The permission's mode is Read; ${ctx.method} needs mode All.`);
  const type = segments[4];
  if (
    grant.partitionKey === undefined ||
    (type !== 'docs' && type !== 'sprocs') ||
    (type === 'sprocs' && ctx.method !== 'POST')
  )
    return;
  const [, db, , coll] = segments;
  const definition = store.container(db ?? '', coll ?? '').res.partitionKey;
  const requested = partitionKeyFromHeader(header(ctx, 'x-ms-documentdb-partitionkey'), definition);
  if (requested !== grant.partitionKey) {
    throw forbidden(
      `The resource token is limited to partition key ${grant.partitionKey}; the request is for ${requested ?? 'no partition key'}.`,
    );
  }
}
