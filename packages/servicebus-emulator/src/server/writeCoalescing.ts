import type { Socket } from 'node:net';

/**
 * Sends the frames written to `socket` in one turn of the event loop together. rhea writes every frame with its own
 * `socket.write`; with Nagle's algorithm off (needed so a reply never waits for the peer's delayed ACK) each of
 * those became a TCP segment of its own, and a peer reading a stream of deliveries paid for every one of them. The
 * socket is corked at the first write of a turn and uncorked once the turn's I/O callbacks are done (`setImmediate`),
 * so a burst leaves as one `writev`, while a lone reply still goes out in the same turn, without waiting for an ACK.
 */
export function coalesceWrites(socket: Socket): void {
  let corked = false;
  const flush = (): void => {
    corked = false;
    socket.uncork();
  };
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  socket.write = ((...args: unknown[]): boolean => {
    if (!corked) {
      corked = true;
      socket.cork();
      setImmediate(flush);
    }
    return write(...args);
  }) as Socket['write'];
}
