import { randomBytes, randomUUID } from 'node:crypto';

/*
 * Resource ids in the service's binary shape, which the .NET SDK decodes (`ResourceIdentifier.TryParse`
 * in azure-cosmos-dotnet-v3) to build rid-based paths such as `dbs/{dbRid}/colls/{collRid}/pkranges`:
 * - database: 4 bytes;
 * - container: the database's 4 bytes + 4 more whose first byte has the high bit set (the "collection" bit;
 *   without it the SDK reads a user id);
 * - document / partition key range: the container's 8 bytes + a little-endian 64-bit value whose top
 *   nibble names the child type (0 document, 5 partition key range).
 * Text form: standard base64 with '/' swapped for '-' so ids stay path-safe, as the service does.
 */

/** The resource types a rid can name. */
export type RidKind = 'database' | 'container' | 'document' | 'pkrange';

const CHILD_TYPE = { document: 0x0n, pkrange: 0x5n, udf: 0x6n, trigger: 0x7n, sproc: 0x8n } as const;
const COLLECTION_BIT = 0x80;

function encode(bytes: Buffer): string {
  return bytes.toString('base64').replace(/\//g, '-');
}

/** The rid's bytes, or `undefined` when the text is not canonical base64 (so names are never mistaken for rids). */
export function ridBytes(rid: string): Buffer | undefined {
  if (rid.length === 0 || rid.length % 4 !== 0 || !/^[A-Za-z0-9+-]*={0,2}$/.test(rid)) return undefined;
  const bytes = Buffer.from(rid.replace(/-/g, '/'), 'base64');
  return encode(bytes) === rid ? bytes : undefined;
}

/** What a rid names, decoded the way the .NET SDK does; `undefined` when it is not a rid of these kinds. */
export function ridKind(rid: string): RidKind | undefined {
  const bytes = ridBytes(rid);
  if (bytes === undefined) return undefined;
  if (bytes.length === 4) return bytes.readUInt32LE(0) === 0 ? undefined : 'database';
  if (bytes.length < 8 || (bytes[4]! & COLLECTION_BIT) === 0) return undefined;
  if (bytes.length === 8) return 'container';
  if (bytes.length !== 16) return undefined;
  const child = bytes.readBigUInt64LE(8) >> 60n;
  if (child === CHILD_TYPE.document) return 'document';
  if (child === CHILD_TYPE.pkrange) return 'pkrange';
  return undefined;
}

/** True when `child` is a rid of `kind` under the resource whose rid is `parent`. */
export function isRidUnder(child: string, kind: RidKind, parent: string): boolean {
  const bytes = ridBytes(child);
  const prefix = ridBytes(parent);
  return (
    ridKind(child) === kind &&
    bytes !== undefined &&
    prefix !== undefined &&
    bytes.subarray(0, prefix.length).equals(prefix)
  );
}

/** A fresh database `_rid`. */
export function newDatabaseRid(): string {
  const bytes = randomBytes(4);
  if (bytes.readUInt32LE(0) === 0) bytes[0] = 1;
  return encode(bytes);
}

/** A fresh container `_rid` under a database `_rid` (collection bit set). */
export function newContainerRid(databaseRid: string): string {
  const tail = randomBytes(4);
  tail[0] = tail[0]! | COLLECTION_BIT;
  return encode(Buffer.concat([ridBytes(databaseRid) ?? Buffer.alloc(4), tail]));
}

function childRid(containerRid: string, kind: keyof typeof CHILD_TYPE, value: bigint): string {
  const tail = Buffer.alloc(8);
  tail.writeBigUInt64LE((CHILD_TYPE[kind] << 60n) | (value & ((1n << 60n) - 1n)));
  return encode(Buffer.concat([ridBytes(containerRid) ?? Buffer.alloc(8), tail]));
}

/** The `sequence`-th document `_rid` under a container `_rid`. */
export function documentRid(containerRid: string, sequence: number): string {
  return childRid(containerRid, 'document', BigInt(sequence));
}

/** The `_rid` of partition key range `rangeId` (a decimal id such as `'0'`) of a container. */
export function partitionKeyRangeRid(containerRid: string, rangeId: string): string {
  return childRid(containerRid, 'pkrange', BigInt(rangeId) + 1n);
}

/**
 * A fresh rid for a metadata resource under `ownerRid`: a user or client encryption key under a database
 * (4 more bytes, collection bit clear), a permission under a user (8 random bytes), a script under a
 * container (8 bytes whose top nibble names the script type, as for documents).
 */
export function newMetadataRid(
  ownerRid: string,
  kind: 'user' | 'clientEncryptionKey' | 'permission' | 'sproc' | 'trigger' | 'udf',
): string {
  const owner = ridBytes(ownerRid) ?? Buffer.alloc(0);
  if (kind === 'user' || kind === 'clientEncryptionKey') {
    const tail = randomBytes(4);
    tail[0] = (tail[0]! & ~COLLECTION_BIT) | 1;
    return encode(Buffer.concat([owner, tail]));
  }
  if (kind === 'permission') return encode(Buffer.concat([owner, randomBytes(8)]));
  return childRid(ownerRid, kind, randomBytes(8).readBigUInt64LE(0));
}

/** A fresh offer rid: four letters and digits, as the service's offer ids look. */
export function newOfferRid(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(4)].map((b) => alphabet[b % alphabet.length]).join('');
}

/** The document sequence a document `_rid` carries (0 for other rids). */
export function ridSequence(rid: string): number {
  const bytes = ridBytes(rid);
  return bytes !== undefined && bytes.length === 16 ? Number(bytes.readBigUInt64LE(8) & ((1n << 60n) - 1n)) : 0;
}

/** A quoted etag, as the service sends it. */
export function newEtag(): string {
  return `"${randomUUID()}"`;
}

/** Seconds since the epoch, the unit of `_ts`. */
export function epochSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}
