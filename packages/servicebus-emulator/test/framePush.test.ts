import { createServer, connect, Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { start } from '../src/index.js';
import { isAwaitedFrame, pushAwaitedFrames } from '../src/server/framePush.js';
import { configWith, queue, startBus } from './helpers.js';
import { managementRequest, rawConnect } from './rawAmqp.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** An AMQP frame header (size, data offset 2, type, channel 0) followed by a performative's descriptor. */
function frame(type: 0 | 1, descriptor: number[]): Buffer {
  const body = Buffer.from([0x00, ...descriptor, 0x45]);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length, 0);
  header[4] = 2;
  header[5] = type;
  return Buffer.concat([header, body]);
}
const performative = (code: number): Buffer => frame(0, [0x53, code]);
const ATTACH = 0x12;
const TRANSFER = 0x14;

/** A connected pair of sockets on loopback: the accepted end and the client's. */
async function socketPair(): Promise<{ accepted: Socket; close(): void }> {
  const server = createServer();
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = connect((server.address() as { port: number }).port, '127.0.0.1');
  const serverEnd = await accepted;
  return {
    accepted: serverEnd,
    close: () => {
      client.destroy();
      serverEnd.destroy();
      server.close();
    },
  };
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('the frames a client waits on', () => {
  it('are the SASL frames and every performative but transfer and disposition', () => {
    for (const code of [0x10, 0x11, 0x12, 0x13, 0x16, 0x17, 0x18])
      expect(isAwaitedFrame(performative(code))).toBe(true);
    expect(isAwaitedFrame(frame(1, [0x53, 0x41]))).toBe(true); // sasl-mechanisms
    expect(isAwaitedFrame(performative(TRANSFER))).toBe(false);
    expect(isAwaitedFrame(performative(0x15))).toBe(false); // disposition
    // The descriptor as a full ulong reads the same.
    expect(isAwaitedFrame(frame(0, [0x80, 0, 0, 0, 0, 0, 0, 0, ATTACH]))).toBe(true);
    expect(isAwaitedFrame(Buffer.from('AMQP\x00\x01\x00\x00', 'latin1'))).toBe(false); // protocol header
    expect(isAwaitedFrame(Buffer.from([0, 0, 0, 8, 2, 0, 0, 0]))).toBe(false); // heartbeat: no performative
  });

  it('are pushed past Nagle once the turn that wrote them is over; a stream of transfers is left to Nagle', async () => {
    const pair = await socketPair();
    try {
      const noDelay = vi.spyOn(pair.accepted, 'setNoDelay');
      pushAwaitedFrames(pair.accepted);
      pair.accepted.write(performative(TRANSFER));
      await nextTurn();
      expect(noDelay).not.toHaveBeenCalled();

      // An attach and the flow after it, written in one turn: one push once the turn is over, Nagle back on after it.
      pair.accepted.write(performative(ATTACH));
      pair.accepted.write(performative(0x13));
      expect(noDelay).not.toHaveBeenCalled();
      await nextTurn();
      expect(noDelay.mock.calls).toEqual([[true], [false]]);
    } finally {
      pair.close();
    }
  });
});

describe('the Service Bus emulator on the wire', () => {
  // With Nagle's algorithm off every frame left as a segment of its own and a session drain lost a third of its
  // speed; with it on and nothing else, a reply written while the client delayed its ACK waited for it (about 40 ms).
  it("keeps Nagle's algorithm on every connection it accepts, turning it off only for the instant of a push", async () => {
    const noDelay = vi.spyOn(Socket.prototype, 'setNoDelay');
    const emulator = await start({ port: 0, adminPort: 0, config: configWith([queue('orders')]) });
    try {
      const connection = await rawConnect(emulator.port);
      await managementRequest(connection, 'orders', 'com.microsoft:peek-message', {
        'from-sequence-number': 0,
        'message-count': 1,
      });
      const accepted = noDelay.mock.contexts
        .map((socket, i) => ({ socket: socket as Socket, on: noDelay.mock.calls[i]?.[0] }))
        .filter(({ socket }) => socket.localPort === emulator.port)
        .map(({ on }) => on);
      // Pushes only: each turns Nagle off and straight back on, so it is on whenever nothing is being pushed.
      expect(accepted.length).toBeGreaterThan(0);
      expect(accepted.length % 2).toBe(0);
      expect(accepted).toEqual(accepted.map((_, i) => i % 2 === 0));
      connection.close();
    } finally {
      await emulator.close();
    }
  });
});

describe('pushes on a connection', () => {
  // Once the client streams messages its own frames carry the ACKs; pushing each session receiver's attach, flow,
  // detach and `$cbs` reply then cost a session drain a tenth of its speed.
  it('stop once its client settles a message delivered to it, but for the answers to a drain', async () => {
    const noDelay = vi.spyOn(Socket.prototype, 'setNoDelay');
    const bus = await startBus(configWith([queue('orders')]));
    try {
      const pushesOnEmulator = (): number =>
        noDelay.mock.contexts.filter((socket) => (socket as Socket).localPort === bus.emulator.port).length;
      const receiverClient = bus.newClient();
      await bus.client.createSender('orders').sendMessages([{ body: 1 }, { body: 2 }]);
      const first = receiverClient.createReceiver('orders');
      const [one] = await first.receiveMessages(1, { maxWaitTimeInMs: 5_000 });
      const beforeStreaming = pushesOnEmulator();
      expect(beforeStreaming).toBeGreaterThan(0); // SASL, open, `$cbs` and the attaches were pushed

      await first.completeMessage(one!);
      await first.close();
      const second = receiverClient.createReceiver('orders');
      const [two] = await second.receiveMessages(1, { maxWaitTimeInMs: 5_000 });
      await second.completeMessage(two!);

      // The second receiver's `$cbs` token and attach went without a push.
      expect(two?.body).toBe(2);
      expect(pushesOnEmulator()).toBe(beforeStreaming);

      // A drain's answer still is: the SDK closes a receiver whose drain is not answered within 200 ms.
      expect(await second.receiveMessages(1, { maxWaitTimeInMs: 50 })).toEqual([]);
      expect(pushesOnEmulator()).toBe(beforeStreaming + 2);
      await second.close();
    } finally {
      await bus.close();
    }
  });
});
