import rhea from 'rhea';
import type { Typed } from 'rhea';

interface ReaderLike {
  position: number;
  read(): Typed;
  remaining(): number;
}
interface WriterLike {
  write(t: Typed): void;
  toBuffer(): Buffer;
}

/**
 * rhea's codec, with the parts its typings leave out (Reader, Writer and the raw type constructors),
 * which the broker needs to keep AMQP types intact when it rewrites a message.
 */
export const amqp = rhea.types as typeof rhea.types & {
  Reader: new (buffer: Buffer) => ReaderLike;
  Writer: new () => WriterLike;
  Null(): Typed;
  List32(items: Typed[]): Typed;
  Map32(items: Typed[]): Typed;
};

/** rhea's message encoder/decoder. */
export const messageCodec = rhea.message;

/** rhea's outcome constructors, which its typings leave out. */
export const outcomes = rhea.message as unknown as {
  accepted(): { described(): unknown };
  rejected(fields: { error: { condition: string; description: string } }): { described(): unknown };
};
