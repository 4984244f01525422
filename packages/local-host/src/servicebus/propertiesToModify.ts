import rhea from 'rhea';

// rhea's typings declare the reader class but not its runtime home on the `types` object.
const { Reader } = rhea.types as unknown as { Reader: new (buffer: Buffer) => { read(): rhea.Typed } };

/** Properties the SDK merges into a message on abandon, defer or dead-letter. */
export type PropertiesToModify = Record<string, number | boolean | string | Date | null>;

/**
 * Accepts `propertiesToModify` as the settlement actions receive it: absent, a plain object, or the bytes the
 * extension forwards to the host — an AMQP-encoded map, which the host decodes the same way.
 * @throws TypeError when bytes are not an AMQP map.
 */
export function decodePropertiesToModify(value: unknown): PropertiesToModify | undefined {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Uint8Array) {
    if (value.length === 0) return undefined;
    const typed = new Reader(Buffer.from(value)).read();
    if (!rhea.types.is_map(typed)) throw new TypeError('propertiesToModify: the bytes are not an AMQP map');
    return rhea.types.unwrap_map_simple(typed) as PropertiesToModify;
  }
  if (isRecord(value)) return value as PropertiesToModify;
  throw new TypeError('propertiesToModify: expected an AMQP-encoded map or an object');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Uint8Array) &&
    !(value instanceof Date)
  );
}
