import { randomBytes, randomUUID } from 'node:crypto';

/*
 * Resource ids in the service's shape: base64 of 4 bytes (database), 8 (container), 16 (document),
 * each extending its parent's bytes; '/' is swapped for '-' so ids stay path-safe, as the service does.
 */

function encode(bytes: Buffer): string {
  return bytes.toString('base64').replace(/\//g, '-');
}

function decode(rid: string): Buffer {
  return Buffer.from(rid.replace(/-/g, '/'), 'base64');
}

/** A fresh database `_rid`. */
export function newDatabaseRid(): string {
  return encode(randomBytes(4));
}

/** A fresh container `_rid` under a database `_rid`. */
export function newContainerRid(databaseRid: string): string {
  return encode(Buffer.concat([decode(databaseRid), randomBytes(4)]));
}

/** The `sequence`-th document `_rid` under a container `_rid`. */
export function documentRid(containerRid: string, sequence: number): string {
  const tail = Buffer.alloc(8);
  tail.writeBigUInt64LE(BigInt(sequence));
  return encode(Buffer.concat([decode(containerRid), tail]));
}

/** A quoted etag, as the service sends it. */
export function newEtag(): string {
  return `"${randomUUID()}"`;
}

/** Seconds since the epoch, the unit of `_ts`. */
export function epochSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}
