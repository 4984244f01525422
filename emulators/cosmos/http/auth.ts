import { createHmac, timingSafeEqual } from 'node:crypto';
import { unauthorized } from '../errors/errorFactory.js';
import type { RequestContext } from './requestContext.js';
import { header } from './requestContext.js';
import { ridSignedLink } from './resourceIds.js';

/** The emulator's well-known account key (the same one the official emulators use). */
export const EMULATOR_KEY = 'C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==';

/**
 * Checks a master-key signature: `type=master&ver=1.0&sig=<base64 HMAC-SHA256>` (URL-encoded) over
 * `verb\nresourceType\nresourceLink\ndate\n\n`, lower-cased except the link — the string the SDK
 * builds in `utils/headers.js`, or for a rid-addressed request the lower-cased rid the .NET SDK signs.
 * @throws CosmosError 401 on a missing, malformed or wrong signature.
 */
export function verifyMasterKey(ctx: RequestContext, key: string): void {
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
  if (fields.get('type') !== 'master' || fields.get('ver') !== '1.0' || signature === null) {
    throw unauthorized('The authorization header must be of the form type=master&ver=1.0&sig=<signature>.');
  }
  const date = header(ctx, 'x-ms-date') ?? header(ctx, 'date');
  if (date === undefined) throw unauthorized('Required Header x-ms-date is missing.');
  const signed = (link: string): string => `${ctx.method.toLowerCase()}\n${ctx.address.resourceType.toLowerCase()}\n${link}\n${date.toLowerCase()}\n\n`;
  const given = Buffer.from(signature, 'base64');
  const matches = (payload: string): boolean => {
    const expected = createHmac('sha256', Buffer.from(key, 'base64')).update(payload).digest();
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  // Name-based links are signed as they are (case-sensitive); a rid-addressed request is signed with its last
  // resource id lower-cased (see `ridSignedLink`).
  const ridLink = ridSignedLink(ctx);
  if (matches(signed(ctx.address.resourceLink)) || (ridLink !== undefined && matches(signed(ridLink)))) return;
  const payload = signed(ridLink ?? ctx.address.resourceLink);
  throw unauthorized(
    `The MAC signature found in the HTTP request is not the same as the computed signature. Server used following string to sign - '${payload.replace(/\n/g, '\\n')}'`,
  );
}
