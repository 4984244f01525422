import type { Socket } from 'node:net';
import type { Connection } from 'rhea';

/** AMQP performative codes (AMQP 1.0 §2.7) of the frames a peer streams rather than waits on. */
const TRANSFER = 0x14;
const DISPOSITION = 0x15;
const FLOW = 0x13;

const scheduled = new WeakSet<Socket>();
/** Connections whose client streams messages: only their flows are pushed now (see {@link endPushes}). */
const streaming = new WeakSet<Socket>();

/**
 * Pushes what `socket` holds back out once the current turn of the event loop has written everything it will.
 * Setting TCP_NODELAY sends the segments Nagle's algorithm holds; clearing it at once keeps Nagle for what follows.
 * A reply written while the client's delayed ACK is pending would otherwise wait for that ACK (about 40 ms on Linux).
 */
export function pushAfterTurn(socket: Socket): void {
  if (!streaming.has(socket)) pushTurn(socket);
}

function pushTurn(socket: Socket): void {
  if (scheduled.has(socket)) return;
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
  const code = performativeOf(frame);
  return code !== undefined && code !== TRANSFER && code !== DISPOSITION;
}

/** The performative code of an AMQP frame; `0x100` for a SASL frame; undefined for the header or a heartbeat. */
function performativeOf(frame: Uint8Array): number | undefined {
  // Frame header: size (4), data offset in 4-byte words (1), type (1: 0 AMQP, 1 SASL), channel (2).
  if (frame.length < 8 || frame[0] === 0x41) return undefined;
  if (frame[5] === 1) return 0x100;
  const body = (frame[4] ?? 2) * 4;
  // The performative is a described list: 0x00, then its descriptor as a small ulong (0x53 code) or a ulong (0x80).
  if (frame.length <= body + 2 || frame[body] !== 0x00) return undefined;
  return frame[body + 1] === 0x53 ? frame[body + 2] : frame[body + 1] === 0x80 ? frame[body + 9] : undefined;
}

/**
 * Keeps Nagle's algorithm on `socket` (a stream of deliveries and dispositions leaves in few, full segments; with
 * it off every frame was a segment of its own and a session drain lost a third of its speed) and pushes the turns
 * that write a frame the client waits on ({@link isAwaitedFrame}) — after {@link endPushes}, a flow only; replies
 * on `$cbs` and `$management` are transfers, so the reply router pushes those itself ({@link pushAfterTurn}).
 */
export function pushAwaitedFrames(socket: Socket): void {
  const write = socket.write;
  socket.write = ((...args: unknown[]): boolean => {
    const [chunk] = args;
    if (chunk instanceof Uint8Array && (streaming.has(socket) ? isFlowFrame(chunk) : isAwaitedFrame(chunk)))
      pushTurn(socket);
    return (write as (...a: unknown[]) => boolean).apply(socket, args);
  }) as Socket['write'];
}

/** Whether `frame` is a flow: the answer to a drain, which the SDK waits on 200 ms before it closes its receiver. */
function isFlowFrame(frame: Uint8Array): boolean {
  return performativeOf(frame) === FLOW;
}

/**
 * Ends most pushes on `socket` once its client streams messages (it settles one delivered to it, or sends one): its
 * own frames then carry the ACKs a held reply waits for, and pushing the turns of a busy stream (five each time a
 * session receiver comes and goes, and its `$cbs` reply) cost a session drain a tenth of its speed. What a
 * connection waits on before that — SASL, open, `$cbs`, the first attaches and flows — keeps its push: that is
 * where the delayed ACK cost start-up about 40 ms a reply. Flows stay pushed: a drain's answer held past 200 ms
 * makes the SDK close its receiver, and a session receiver then loses its session.
 */
export function endPushes(socket: Socket): void {
  streaming.add(socket);
}

/** The socket under a rhea connection (absent once it is gone). */
export function socketOf(connection: Connection): Socket | undefined {
  return (connection as unknown as { socket?: Socket }).socket;
}
