import type { ValidationIssue } from '../errors.js';

/** Outcome of {@link normaliseBody}: the parsed JSON value, or why the body is not JSON. */
export type NormalisedBody = { ok: true; value: unknown } | { ok: false; issues: ValidationIssue[] };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Turns a message body into a parsed JSON value, whatever shape the host delivered: an object (the SDK
 * receiver with a JSON body, or the Functions extension with `contentType: application/json`), a string
 * (the extension otherwise), or bytes (`Buffer`, `Uint8Array`, `ArrayBuffer`). Done once, before validation
 * and hashing, so every host hashes the same value. Text that is not JSON (or bytes that are not UTF-8) is a
 * schema failure (rule 6).
 */
export function normaliseBody(body: unknown): NormalisedBody {
  if (typeof body === 'string') return parseText(body);
  if (body instanceof Uint8Array) return decode(body);
  if (body instanceof ArrayBuffer) return decode(new Uint8Array(body));
  if (body === undefined) return notJson('The body is empty');
  // Already parsed by the host (object, array, number, boolean, null): the schema judges it.
  return { ok: true, value: body };
}

/**
 * Byte length of a body as it travels: bytes as they are, text as UTF-8, an already parsed value as its
 * compact JSON. Used for the ledger size limit.
 */
export function bodyByteLength(body: unknown): number {
  if (typeof body === 'string') return Buffer.byteLength(body, 'utf8');
  if (body instanceof Uint8Array) return body.byteLength;
  if (body instanceof ArrayBuffer) return body.byteLength;
  const json = JSON.stringify(body);
  return json === undefined ? 0 : Buffer.byteLength(json, 'utf8');
}

function decode(bytes: Uint8Array): NormalisedBody {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return notJson('The body is not UTF-8 text');
  }
  return parseText(text);
}

function parseText(text: string): NormalisedBody {
  // A byte-order mark is legal in UTF-8 files but not in JSON.parse input.
  const trimmed = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON.parse(trimmed) as unknown };
  } catch {
    return notJson('The body is not valid JSON');
  }
}

function notJson(message: string): NormalisedBody {
  return { ok: false, issues: [{ path: '', message }] };
}
