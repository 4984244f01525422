import { randomUUID } from 'node:crypto';

/** A fresh lock token in canonical string form. */
export function newLockToken(): string {
  return randomUUID();
}

/** RFC 4122 byte order, as `$management` carries lock tokens (AMQP uuid). */
export function tokenToUuidBytes(token: string): Buffer {
  return Buffer.from(token.replace(/-/g, ''), 'hex');
}

/** Canonical string from RFC-ordered uuid bytes. */
export function uuidBytesToToken(bytes: Buffer): string {
  const h = bytes.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The delivery tag: the lock token in .NET `Guid.ToByteArray` order (first three groups little-endian),
 * which is what both SDKs reorder when they read a lock token off a transfer.
 */
export function tokenToDeliveryTag(token: string): Buffer {
  const b = tokenToUuidBytes(token);
  return Buffer.from([b[3], b[2], b[1], b[0], b[5], b[4], b[7], b[6], ...b.subarray(8)] as number[]);
}
