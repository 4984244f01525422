import type { Socket } from 'node:net';
import type { Connection } from 'rhea';

/** AMQP performative codes (AMQP 1.0 §2.7) of the frames a peer streams rather than waits on. */
const TRANSFER = 0x14;
const DISPOSITION = 0x15;

const scheduled = new WeakSet<Socket>();
/** Connections whose client streams messages: their pushes are over (see {@link endPushes}). */
const streaming = new WeakSet<Socket>();
/** Each pushing socket's own `write`, put back by {@link endPushes}. */
const unwrapped = new WeakMap<Socket, Socket['write']>();

/**
 * Pushes what `socket` holds back out once the current turn of the event loop has written everything it will.
 * Setting TCP_NODELAY sends the segments Nagle's algorithm holds; clearing it at once keeps Nagle for what follows.
 * A reply written while the client's delayed ACK is pending would otherwise wait for that ACK (about 40 ms on Linux).
 */
export function pushAfterTurn(socket: Socket): void {
  if (scheduled.has(socket) || streaming.has(socket)) return;
  scheduled.add(socket);
  setImmediate(() => {
    scheduled.delete(socket);
    if (socket.destroyed) return;
    socket.setNoDelay(true);
    socket.setNoDelay(false);
  });
}

/**
 * Whether `frame` (one AMQP or SASL frame as rhea writes it: one `socket.write` each) is one a client waits on before
 * it goes on: SASL, open, begin, attach, flow, detach, end, close. Transfers and dispositions are the steady stream
 * that Nagle's algorithm packs into few segments; the protocol header and empty (heartbeat) frames need no push.
 * @internal exported for its tests
 */
export function isAwaitedFrame(frame: Uint8Array): boolean {
  // Frame header: size (4), data offset in 4-byte words (1), type (1: 0 AMQP, 1 SASL), channel (2).
  if (frame.length < 8 || frame[0] === 0x41) return false;
  if (frame[5] === 1) return true;
  const body = (frame[4] ?? 2) * 4;
  // The performative is a described list: 0x00, then its descriptor as a small ulong (0x53 code) or a ulong (0x80).
  if (frame.length <= body + 2 || frame[body] !== 0x00) return false;
  const code = frame[body + 1] === 0x53 ? frame[body + 2] : frame[body + 1] === 0x80 ? frame[body + 9] : undefined;
  return code !== undefined && code !== TRANSFER && code !== DISPOSITION;
}

/**
 * Keeps Nagle's algorithm on `socket` (a stream of deliveries and dispositions leaves in few, full segments; with
 * it off every frame was a segment of its own and a session drain lost a third of its speed) and, until
 * {@link endPushes}, pushes the turns that write a frame the client waits on ({@link isAwaitedFrame}); replies on
 * `$cbs` and `$management` are transfers, so the reply router pushes those itself ({@link pushAfterTurn}).
 */
export function pushAwaitedFrames(socket: Socket): void {
  const write = socket.write;
  unwrapped.set(socket, write);
  socket.write = ((...args: unknown[]): boolean => {
    const [chunk] = args;
    if (chunk instanceof Uint8Array && isAwaitedFrame(chunk)) pushAfterTurn(socket);
    return (write as (...a: unknown[]) => boolean).apply(socket, args);
  }) as Socket['write'];
}

/**
 * Ends the pushes on `socket` once its client streams messages (it settles one delivered to it, or sends one): its
 * own frames then carry the ACKs a held reply waits for, and pushing the turns of a busy stream (five each time a
 * session receiver comes and goes, and its `$cbs` reply) cost a session drain a tenth of its speed. What a
 * connection waits on before that — SASL, open, `$cbs`, the first attaches and flows — keeps its push: that is
 * where the delayed ACK cost start-up about 40 ms a reply.
 */
export function endPushes(socket: Socket): void {
  if (streaming.has(socket)) return;
  streaming.add(socket);
  const write = unwrapped.get(socket);
  if (write) socket.write = write;
}

/** The socket under a rhea connection (absent once it is gone). */
export function socketOf(connection: Connection): Socket | undefined {
  return (connection as unknown as { socket?: Socket }).socket;
}
