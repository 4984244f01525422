import { createHmac, timingSafeEqual } from 'node:crypto';

/** A shared access signature as clients send it: `SharedAccessSignature sr=…&sig=…&se=…&skn=…`. */
export interface SasToken {
  /** The signed resource URI, decoded (`sb://host/queue`). */
  readonly resource: string;
  /** Expiry, epoch seconds. */
  readonly expiry: number;
  readonly keyName: string;
  readonly signature: string;
  /** What the signature was computed over: the resource as encoded in the token, a newline, the expiry. */
  readonly signed: string;
}

/** Parses a token; undefined when it is not a shared access signature. */
export function parseSasToken(text: string): SasToken | undefined {
  const m = /^SharedAccessSignature\s+(.+)$/.exec(text.trim());
  if (!m) return undefined;
  const fields = new Map<string, string>();
  for (const part of (m[1] as string).split('&')) {
    const i = part.indexOf('=');
    if (i > 0) fields.set(part.slice(0, i).toLowerCase(), part.slice(i + 1));
  }
  const sr = fields.get('sr');
  const sig = fields.get('sig');
  const se = fields.get('se');
  const skn = fields.get('skn');
  if (sr === undefined || sig === undefined || se === undefined || skn === undefined || !/^\d+$/.test(se))
    return undefined;
  try {
    const decode = (v: string): string => decodeURIComponent(v.replace(/\+/g, ' '));
    // A signature is base64, URL-encoded: a '+' in it is never a space.
    return {
      resource: decode(sr),
      expiry: Number(se),
      keyName: decode(skn),
      signature: decodeURIComponent(sig),
      signed: `${sr}\n${se}`,
    };
  } catch {
    return undefined;
  }
}

/** Whether `token` was signed with `key` (HMAC-SHA256 over the resource and expiry, base64). */
export function signedWith(token: SasToken, key: string): boolean {
  const expected = createHmac('sha256', Buffer.from(key, 'utf8')).update(token.signed, 'utf8').digest();
  const given = Buffer.from(token.signature, 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
