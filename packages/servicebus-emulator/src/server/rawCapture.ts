import rhea from 'rhea';

/**
 * rhea decodes every plain (format 0) transfer before handing it over and keeps no copy of the bytes, but the
 * broker must re-emit messages with their original AMQP types (a .NET `long` property must stay a long).
 * Wrapping `message.decode` records the buffer of the transfer being dispatched; the receiver handler, which
 * runs synchronously right after that decode, takes it. Decoding itself is unchanged.
 */
const codec = rhea.message as unknown as { decode: (buf: Buffer) => unknown };
let last: Buffer | undefined;
let installed = false;

/** Installs the capture once per process. */
export function installRawCapture(): void {
  if (installed) return;
  installed = true;
  const original = codec.decode;
  codec.decode = function decode(this: unknown, buf: Buffer): unknown {
    last = buf;
    return original.call(this, buf);
  };
}

/** The bytes of the message rhea just decoded, if `decoded` came from that decode. */
export function takeRaw(): Buffer | undefined {
  const b = last;
  last = undefined;
  return b;
}
