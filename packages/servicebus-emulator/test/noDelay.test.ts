import { Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { start } from '../src/index.js';
import { configWith, queue } from './helpers.js';
import { rawConnect } from './rawAmqp.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the Service Bus emulator on the wire', () => {
  // With Nagle's algorithm a frame written while the client delays its ACK waits for it (about 40 ms on Linux),
  // several times per link attach: the first send of a fresh client took a third of a second for nothing.
  it('writes its frames at once on every connection it accepts (Nagle off), whatever the client does', async () => {
    const noDelay = vi.spyOn(Socket.prototype, 'setNoDelay');
    const emulator = await start({ port: 0, adminPort: 0, config: configWith([queue('orders')]) });
    try {
      // A bare client: no receiver attached, so rhea leaves Nagle on at its own end.
      const connection = await rawConnect(emulator.port, { token: false });
      const accepted = noDelay.mock.contexts
        .map((socket, i) => ({ socket: socket as Socket, on: noDelay.mock.calls[i]?.[0] }))
        .filter(({ socket }) => socket.localPort === emulator.port);
      expect(accepted.map(({ socket, on }) => ({ peer: socket.remotePort, on }))).toEqual([
        { peer: connection.socket?.localPort, on: true },
      ]);
      connection.close();
    } finally {
      await emulator.close();
    }
  });
});
