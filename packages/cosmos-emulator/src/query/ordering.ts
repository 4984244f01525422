/*
 * Value order and equality as Cosmos SQL defines them for ORDER BY, DISTINCT and GROUP BY: types rank
 * undefined < null < boolean < number < string < array < object, values of one type compare by value, and two
 * values are the same when they are deeply equal (object key order aside).
 */

const TYPE_RANK = ['undefined', 'null', 'boolean', 'number', 'string', 'array', 'object'] as const;

function typeRank(value: unknown): number {
  if (value === null) return 1;
  if (Array.isArray(value)) return 5;
  return TYPE_RANK.indexOf(typeof value as (typeof TYPE_RANK)[number]);
}

/** Negative, zero or positive as `a` sorts before, with or after `b`. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number' || typeof a === 'string' || typeof a === 'boolean') {
    return a === b ? 0 : (a as number | string) < (b as number | string) ? -1 : 1;
  }
  if (ra === 5 || ra === 6) return canonicalKey(a) < canonicalKey(b) ? -1 : canonicalKey(a) > canonicalKey(b) ? 1 : 0;
  return 0;
}

/** A string equal for deeply equal values (objects with sorted keys; undefined apart from null). */
export function canonicalKey(value: unknown): string {
  if (value === undefined) return 'u';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalKey).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalKey(v)}`).join(',')}}`;
}

/** The values without repeats (the first of each kept), in order. */
export function distinct<T>(values: T[], keyOf: (value: T) => unknown = (v) => v): T[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = canonicalKey(keyOf(value));
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
