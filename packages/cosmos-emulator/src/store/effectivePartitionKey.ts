import murmurHash3 from 'murmurhash3js-revisited';
import type { PartitionKeyDefinition } from './types.js';

/*
 * Effective partition keys (EPKs): where a logical partition sits in the hash space that partition key
 * ranges split. Computed the way the service and the SDKs compute them for hash version 2 (and for
 * hierarchical keys, which hash each component that way and concatenate), so a client that routes a
 * key to a range by its own hashing agrees with the emulator. Hash version 1 is not modelled: such
 * containers are served as one range.
 */

/** Type markers the service writes before each component's bytes. */
const MARKER = { undefined: 0x00, null: 0x01, false: 0x02, true: 0x03, number: 0x05, string: 0x08, end: 0xff } as const;

/** EPKs of hash v2 lie in [0, 2^126): the top two bits of the 128-bit hash are masked off. */
const V2_SPACE = 1n << 126n;

/** The smallest and largest bounds a range can have (the SDKs' constants). */
const MIN_EPK = '';
const MAX_EPK = 'FF';

const encoder = new TextEncoder();

function componentBytes(value: unknown): Uint8Array {
  switch (typeof value) {
    case 'string': {
      const text = encoder.encode(value);
      const out = new Uint8Array(text.length + 2);
      out[0] = MARKER.string;
      out.set(text, 1);
      out[text.length + 1] = MARKER.end;
      return out;
    }
    case 'number': {
      // The double's IEEE-754 bits, little-endian.
      const out = new Uint8Array(9);
      out[0] = MARKER.number;
      new DataView(out.buffer).setFloat64(1, value, true);
      return out;
    }
    case 'boolean':
      return Uint8Array.of(value ? MARKER.true : MARKER.false);
    default:
      // null, and the "None" literal `{}` (no value at the path), which the service hashes as undefined.
      return Uint8Array.of(value === null ? MARKER.null : MARKER.undefined);
  }
}

/** The 32 hex digits of one hash v2 over the concatenated components. */
function hashV2(components: unknown[]): string {
  const parts = components.map(componentBytes);
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  // The library prints h1 then h2 (big-endian each); the service reads the 128 bits as h2:h1.
  const hex = murmurHash3.x64.hash128(bytes);
  const digest = Buffer.from(hex.slice(16) + hex.slice(0, 16), 'hex');
  digest[0] = (digest[0] ?? 0) & 0x3f;
  return digest.toString('hex').toUpperCase();
}

/** True when ranges of this container can be computed (hash v2 or hierarchical keys). */
export function hasEffectivePartitionKeys(definition: PartitionKeyDefinition): boolean {
  return definition.kind === 'MultiHash' || definition.version === 2;
}

/**
 * The EPK of a logical partition given its canonical key (see `partitionKey.ts`), or undefined for
 * hash v1 containers.
 */
export function effectivePartitionKey(canonicalKey: string, definition: PartitionKeyDefinition): string | undefined {
  if (!hasEffectivePartitionKeys(definition)) return undefined;
  const components = JSON.parse(canonicalKey) as unknown[];
  return definition.kind === 'MultiHash' ? components.map((c) => hashV2([c])).join('') : hashV2(components);
}

/** One partition key range: `[minInclusive, maxExclusive)` of the EPK space. */
export interface EpkRange {
  id: string;
  minInclusive: string;
  maxExclusive: string;
}

/**
 * `count` ranges, ids "0".."count-1", splitting the hash v2 space evenly; the first starts at "" and the
 * last ends at "FF" as the service's do. Bounds are 32 hex digits, so they compare with EPKs as strings.
 */
export function splitRanges(count: number): EpkRange[] {
  const bound = (i: number): string =>
    ((V2_SPACE * BigInt(i)) / BigInt(count)).toString(16).toUpperCase().padStart(32, '0');
  return Array.from({ length: count }, (_, i) => ({
    id: String(i),
    minInclusive: i === 0 ? MIN_EPK : bound(i),
    maxExclusive: i === count - 1 ? MAX_EPK : bound(i + 1),
  }));
}

/** Index of the range holding `epk` (ranges as from {@link splitRanges}). */
export function rangeIndexOf(ranges: EpkRange[], epk: string): number {
  let low = 0;
  let high = ranges.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((ranges[mid]?.minInclusive ?? '') <= epk) low = mid;
    else high = mid - 1;
  }
  return low;
}
