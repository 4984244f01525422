import type { Socket } from 'node:net';

/** Largest frame the broker advertises (and accepts). */
export const MAX_FRAME_SIZE = 1024 * 1024;

/**
 * Watches frame boundaries on a socket and drops the connection when a peer announces a frame larger than
 * {@link MAX_FRAME_SIZE}: rhea would otherwise buffer up to the announced size (4 GB for garbage bytes)
 * before looking at it. Protocol headers (`AMQP…`, also sent again after SASL) are skipped.
 */
export function guardFrames(socket: Socket, onViolation: (reason: string) => void): void {
  let pending = Buffer.alloc(0);
  let skip = 0;
  socket.prependListener('data', (chunk: Buffer) => {
    let buf = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
    for (;;) {
      if (skip > 0) {
        const n = Math.min(skip, buf.length);
        skip -= n;
        buf = buf.subarray(n);
      }
      if (skip > 0 || buf.length < 8) break;
      if (buf.toString('latin1', 0, 4) === 'AMQP') {
        skip = 8;
        continue;
      }
      const size = buf.readUInt32BE(0);
      if (size > MAX_FRAME_SIZE || size < 8) {
        onViolation(`frame size ${size} outside 8..${MAX_FRAME_SIZE}`);
        socket.destroy();
        return;
      }
      skip = size;
    }
    pending = Buffer.from(buf);
  });
}
