import { createHash } from 'node:crypto';
import canonicalizeModule from 'canonicalize';
import type { Entry } from './entryTypes/registry.js';

type Canonicalize = (input: unknown) => string | undefined;
// The package is CommonJS (`module.exports = serialize`) while its typings declare an ES default export, so
// under NodeNext TypeScript sees `{ default }` where Node hands us the function. Accept both shapes.
const canonicalize: Canonicalize =
  typeof canonicalizeModule === 'function'
    ? (canonicalizeModule as Canonicalize)
    : (canonicalizeModule as unknown as { default: Canonicalize }).default;

/** Hex digits of the request hash that go into an order entry's `messageId`. */
export const MESSAGE_ID_HASH_DIGITS = 16;

/**
 * The request hash of an entry: SHA-256, lowercase hex, of its RFC 8785 (JCS) canonical JSON. Key order,
 * whitespace and escape forms of the producer's text do not matter; the parsed values do.
 */
export function requestHash(entry: Entry): string {
  const canonical = canonicalize(entry);
  // canonicalize returns undefined only for undefined/functions/symbols, which a validated entry never is.
  if (canonical === undefined) throw new TypeError('The entry has no JSON form');
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

/**
 * `messageId` of an order entry message: `<entryId>:<first 16 hex digits of the request hash>`. Broker duplicate
 * detection drops identical re-sends, while a reused `entryId` with other content still reaches the processor.
 */
export function entryMessageId(entryId: string, hash: string): string {
  return `${entryId}:${hash.slice(0, MESSAGE_ID_HASH_DIGITS)}`;
}

/** What an operator's resubmission of a dead-lettered or rejected entry carries (rule 10). */
export interface Resubmission {
  /** `<entryId>.r<n>`: a new id so that broker duplicate detection lets it through. */
  messageId: string;
  /** n: to be set as the application property `resubmitCount`. */
  resubmitCount: number;
}

/**
 * The id and count of the next resubmission of an entry (rule 10): n = 1 + the highest `resubmitCount` seen for it —
 * on all its dead letters, not only the one resubmitted (an entry can be dead-lettered, resubmitted and dead-lettered
 * again), and for a rejected entry the count its `rejected` record keeps. None seen = 0, so n = 1. Reusing an n
 * inside the duplicate-detection window would have the broker drop the resubmission silently.
 */
export function resubmission(entryId: string, seenCounts: Iterable<number>): Resubmission {
  let highest = 0;
  for (const count of seenCounts) highest = Math.max(highest, count);
  const resubmitCount = highest + 1;
  return { messageId: `${entryId}.r${resubmitCount}`, resubmitCount };
}

/** Reads the `resubmitCount` application property (a number or a numeric string); 0 when absent or invalid. */
export function readResubmitCount(properties: Readonly<Record<string, unknown>> | undefined): number {
  const raw = properties?.resubmitCount;
  const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}
