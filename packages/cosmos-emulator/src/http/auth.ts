import { createHmac, timingSafeEqual } from 'node:crypto';
import { unauthorized } from '../errors/errorFactory.js';
import type { RequestContext } from './requestContext.js';
import { header } from './requestContext.js';
import { ridSignedLink } from './resourceIds.js';
import { readResourceToken } from './resourceTokens.js';
import type { ResourceGrant } from './resourceTokens.js';

/** The emulator's well-known account key (the same one the official emulators use). */
export const EMULATOR_KEY = 'C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==';

/**
 * A path segment as the service reads it when checking a signature: percent-decoded once more when it still
 * holds escapes, and without trailing whitespace. An id such as `Test ` or `a%20` therefore signs (client
 * side) differently from how the service reads it, and every request addressing it by name fails with 401
 * there; the emulator answers the same.
 */
function serviceSegment(segment: string): string {
  let decoded = segment;
  if (/%[0-9A-Fa-f]{2}/.test(segment)) {
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      decoded = segment;
    }
  }
  return decoded.trimEnd();
}

/** The links a correct signature may have been computed over for this request. */
function signedLinks(ctx: RequestContext): string[] {
  const { resourceLink, resourceType } = ctx.address;
  const links = [resourceLink.split('/').map(serviceSegment).join('/')];
  // A rid-addressed request is signed with its last resource id lower-cased (see `ridSignedLink`).
  const ridLink = ridSignedLink(ctx);
  if (ridLink !== undefined) links.push(ridLink);
  // Offers are addressed by their rid alone, which the SDKs sign lower-cased (`auth.ts` in the JS SDK).
  if (resourceType === 'offers' && resourceLink !== '') links.push((resourceLink.split('/').pop() ?? '').toLowerCase());
  return links;
}

function verifyMasterSignature(ctx: RequestContext, key: string, signature: string): void {
  const date = header(ctx, 'x-ms-date') ?? header(ctx, 'date');
  if (date === undefined) throw unauthorized('Required Header x-ms-date is missing.');
  const signed = (link: string): string =>
    `${ctx.method.toLowerCase()}\n${ctx.address.resourceType.toLowerCase()}\n${link}\n${date.toLowerCase()}\n\n`;
  const given = Buffer.from(signature, 'base64');
  const matches = (payload: string): boolean => {
    const expected = createHmac('sha256', Buffer.from(key, 'base64')).update(payload).digest();
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  const links = signedLinks(ctx);
  if (links.some((link) => matches(signed(link)))) return;
  const payload = signed(links[links.length - 1] ?? '');
  throw unauthorized(
    `The MAC signature found in the HTTP request is not the same as the computed signature. Server used following string to sign - '${payload.replace(/\n/g, '\\n')}'`,
  );
}

/**
 * Checks the `authorization` header: a master-key signature (`type=master&ver=1.0&sig=<base64 HMAC-SHA256>`,
 * URL-encoded, over `verb\nresourceType\nresourceLink\ndate\n\n` lower-cased except the link — the string the
 * SDK builds in `utils/headers.js`) or a resource token issued with a permission (`type=resource`).
 * @returns the token's grant, to be checked against the request once its path is resolved; `undefined` for
 * the master key, which may do anything.
 * @throws CosmosError 401 on a missing, malformed, forged or expired credential.
 */
export function authorize(ctx: RequestContext, key: string): ResourceGrant | undefined {
  const raw = header(ctx, 'authorization');
  if (raw === undefined) throw unauthorized('Required Header authorization is missing.');
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw unauthorized('The authorization header is not URL-encoded correctly.');
  }
  const fields = new URLSearchParams(decoded.replace(/\+/g, '%2B'));
  const signature = fields.get('sig');
  const type = fields.get('type');
  if ((type !== 'master' && type !== 'resource') || signature === null) {
    throw unauthorized(
      'The authorization header must be of the form type=master&ver=1.0&sig=<signature> or a resource token.',
    );
  }
  if (type === 'resource') return readResourceToken(signature, key);
  if (fields.get('ver') !== '1.0') throw unauthorized('The authorization header must carry ver=1.0.');
  verifyMasterSignature(ctx, key, signature);
  return undefined;
}
