import { amqp } from '../broker/amqpTypes.js';
import { uuidBytesToToken } from '../broker/lockToken.js';
import { brokerErrors } from '../errors/brokerError.js';

/** An AMQP long as rhea decodes it (number, or 8 big-endian bytes when beyond 2^53). */
export function toLong(v: unknown, field: string): number {
  if (typeof v === 'number') return v;
  if (Buffer.isBuffer(v) && v.length === 8) return Number(v.readBigInt64BE());
  throw brokerErrors.badRequest(`${field} must be a long`);
}

/** A list or array of longs. */
export function toLongs(v: unknown, field: string): number[] {
  if (!Array.isArray(v)) throw brokerErrors.badRequest(`${field} must be an array of longs`);
  return v.map((x) => toLong(x, field));
}

/** Lock tokens (AMQP uuid, RFC byte order) as canonical strings. */
export function toTokens(v: unknown): string[] {
  if (!Array.isArray(v)) throw brokerErrors.badRequest('lock-tokens must be an array of uuids');
  return v.map((t) => {
    if (Buffer.isBuffer(t) && t.length === 16) return uuidBytesToToken(t);
    if (typeof t === 'string') return t.toLowerCase();
    throw brokerErrors.badRequest('lock-tokens must be uuids');
  });
}

/** A required string field. */
export function toStringField(v: unknown, field: string): string {
  if (typeof v !== 'string') throw brokerErrors.badRequest(`${field} must be a string`);
  return v;
}

/** Typed arrays: .NET reads these as `DateTime[]`, `long[]`, `string[]` and fails on a plain list. */
export const typedArray = {
  timestamps: (ms: number[]): unknown => amqp.wrap_array(ms, 0x83, undefined),
  longs: (n: number[]): unknown =>
    amqp.wrap_array(
      n.map((x) => longBytes(x)),
      0x81,
      undefined,
    ),
  strings: (s: string[]): unknown => amqp.wrap_array(s, 0xb1, undefined),
};

function longBytes(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(n));
  return b;
}
