import { createServer, connect } from 'node:net';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { coalesceWrites } from '../src/server/writeCoalescing.js';

/** A connected pair of sockets on loopback: the accepted end and the client's. */
async function socketPair(): Promise<{ accepted: Socket; client: Socket; close(): void }> {
  const server = createServer();
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const client = connect(port, '127.0.0.1');
  const serverEnd = await accepted;
  return {
    accepted: serverEnd,
    client,
    close: () => {
      client.destroy();
      serverEnd.destroy();
      server.close();
    },
  };
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('frames written in one turn of the event loop leave together', () => {
  it('holds the writes of a turn in the socket and sends them all once the turn is over, in order', async () => {
    const pair = await socketPair();
    try {
      pair.accepted.setNoDelay(true);
      coalesceWrites(pair.accepted);
      const received: Buffer[] = [];
      pair.client.on('data', (chunk: Buffer) => received.push(chunk));
      // Three frames written in one turn, as rhea writes a transfer, a flow and a disposition one by one.
      for (const frame of ['first;', 'second;', 'third;']) pair.accepted.write(frame);
      // Still in the same turn: nothing handed to the kernel yet, all three waiting in the corked socket.
      expect(pair.accepted.writableCorked).toBe(1);
      expect(pair.accepted.writableLength).toBe('first;second;third;'.length);
      await nextTurn();
      expect(pair.accepted.writableCorked).toBe(0);
      await new Promise<void>((resolve) => {
        const check = (): void =>
          void (Buffer.concat(received).length === 19 ? resolve() : pair.client.once('data', check));
        check();
      });
      expect(Buffer.concat(received).toString()).toBe('first;second;third;');
      // A later turn corks anew: a lone reply is not held back beyond its own turn.
      pair.accepted.write('reply;');
      expect(pair.accepted.writableCorked).toBe(1);
      await nextTurn();
      expect(pair.accepted.writableCorked).toBe(0);
    } finally {
      pair.close();
    }
  });
});
