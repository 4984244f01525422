import { ridBytes } from '../store/resources.js';

/*
 * Rows that tie on their ORDER BY values come in `_rid` order, and the SDK resumes an ORDER BY query by comparing
 * `_rid`s as numbers: the document part of the rid (bytes 8-15) read little-endian (`RidSkipCountFilter.js` in
 * `@azure/cosmos`), in reverse when any ORDER BY item is descending, as the service's backward index scan yields
 * them. Base64 text does not sort that way, so rids are ordered by this key instead.
 */

const MAX = (1n << 64n) - 1n;

/** Keys of recently seen rids (sorting asks for each row's key many times); dropped wholesale when full. */
const keys = new Map<string, [string, string]>();
const CAPACITY = 200_000;

/** A key that sorts document `_rid`s as the SDK compares them (`reverse`: descending); anything else as is. */
export function ridOrderKey(rid: unknown, reverse = false): unknown {
  if (typeof rid !== 'string') return rid;
  let pair = keys.get(rid);
  if (pair === undefined) {
    const bytes = ridBytes(rid);
    if (bytes === undefined || bytes.length < 16) return rid;
    const value = bytes.readBigUInt64LE(8);
    pair = [`r${value.toString(16).padStart(16, '0')}`, `r${(MAX - value).toString(16).padStart(16, '0')}`];
    if (keys.size >= CAPACITY) keys.clear();
    keys.set(rid, pair);
  }
  return reverse ? pair[1] : pair[0];
}
