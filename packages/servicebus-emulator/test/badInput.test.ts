import { createConnection, createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { ServiceBusClient, isServiceBusError } from '@azure/service-bus';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATIENCE_MS, peekEverything, receiveExactly } from '../../../test/support/serviceBusWaits.js';
import { configWith, queue, startBus } from './helpers.js';
import type { TestBus } from './helpers.js';
import { attachError, rawConnect } from './rawAmqp.js';
import type { Delivery, Message } from 'rhea';

const Q = { ok: 'bad-ok', cut: 'bad-cut', big: 'bad-big', small: 'bad-small' };

/** Sends bytes on a raw socket and resolves when the broker closes it (or, failing that, after the hang guard). */
function sendRaw(port: number, bytes: Buffer): Promise<{ closed: boolean; reply: Buffer }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const s = createConnection({ host: '127.0.0.1', port }, () => s.write(bytes));
    s.on('data', (d) => chunks.push(d));
    const timer = setTimeout(() => {
      s.destroy();
      resolve({ closed: false, reply: Buffer.concat(chunks) });
    }, PATIENCE_MS);
    s.on('close', () => {
      clearTimeout(timer);
      resolve({ closed: true, reply: Buffer.concat(chunks) });
    });
    s.on('error', () => {});
  });
}

/**
 * A loopback TCP proxy to `target`; `forwarder` builds, per client connection, what that client's bytes do to the
 * upstream socket (the socket plumbing is shared so each proxy below states only its policy).
 */
function tcpProxy(
  target: number,
  forwarder: (upstream: Socket, client: Socket) => (d: Buffer) => void,
): Promise<{ port: number; server: Server }> {
  const server = createServer((client: Socket) => {
    const upstream = createConnection({ host: '127.0.0.1', port: target });
    upstream.on('data', (d) => client.write(d));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('data', forwarder(upstream, client));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ port: (server.address() as AddressInfo).port, server })),
  );
}

/** A TCP proxy that cuts both sides once `limit` client bytes went through after `arm()`; `cut` resolves then. */
async function cuttingProxy(
  target: number,
): Promise<{ port: number; arm(limit: number): void; cut: Promise<void>; server: Server }> {
  let limit = Infinity;
  let seen = 0;
  let onCut!: () => void;
  const cut = new Promise<void>((resolve) => (onCut = resolve));
  const proxy = await tcpProxy(target, (upstream, client) => (d) => {
    if (seen + d.length > limit) {
      upstream.write(d.subarray(0, Math.max(0, limit - seen)));
      upstream.destroy();
      client.destroy();
      onCut();
      return;
    }
    seen += d.length;
    upstream.write(d);
  });
  return {
    ...proxy,
    cut,
    arm: (n) => {
      seen = 0;
      limit = n;
    },
  };
}

/**
 * A TCP proxy that, once `hold` is called, keeps the client's bytes until `complete` says they are all there and then
 * forwards them in one write, so the frames they carry reach the broker together however the client's writes fell.
 */
async function holdingProxy(
  target: number,
): Promise<{ port: number; server: Server; hold(complete: (held: Buffer) => boolean): void }> {
  let complete: ((held: Buffer) => boolean) | undefined;
  let held: Buffer[] = [];
  const proxy = await tcpProxy(target, (upstream) => (d) => {
    if (!complete) return void upstream.write(d);
    held.push(d);
    const all = Buffer.concat(held);
    if (!complete(all)) return;
    complete = undefined;
    held = [];
    upstream.write(all);
  });
  return { ...proxy, hold: (until) => void (complete = until) };
}

describe('bad input: the broker answers clearly and keeps serving everyone else', () => {
  let bus: TestBus;
  beforeAll(async () => {
    bus = await startBus(
      configWith([queue(Q.ok), queue(Q.cut), queue(Q.big), queue(Q.small, { MaxMessageSizeInKilobytes: 1 })]),
    );
  });
  afterAll(() => bus.close());

  async function stillServes(): Promise<void> {
    const body = `alive-${Math.random()}`;
    await bus.client.createSender(Q.ok).sendMessages({ body });
    const [m] = await receiveExactly(bus.client.createReceiver(Q.ok, { receiveMode: 'receiveAndDelete' }), 1);
    expect(m?.body).toBe(body);
  }

  it('closes a connection that sends garbage instead of a protocol header', async () => {
    const { closed } = await sendRaw(bus.emulator.port, Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    expect(closed).toBe(true);
    await stillServes();
  });

  it('closes a connection that sends garbage frames after a valid header', async () => {
    const header = Buffer.from([0x41, 0x4d, 0x51, 0x50, 0x03, 0x01, 0x00, 0x00]);
    // A well-sized SASL frame whose body is not a SASL performative.
    const frame = Buffer.concat([Buffer.from([0, 0, 0, 24, 2, 1, 0, 0]), Buffer.alloc(16, 0xee)]);
    const garbage = await sendRaw(bus.emulator.port, Buffer.concat([header, frame]));
    expect(garbage.closed).toBe(true);
    // A frame announcing 4 GB is refused at once instead of being buffered.
    const huge = await sendRaw(bus.emulator.port, Buffer.concat([header, Buffer.alloc(64, 0xff)]));
    expect(huge.closed).toBe(true);
    await stillServes();
  });

  it('drops a message whose sender vanished mid-transfer', async () => {
    // Prepare: the SDK talks through a proxy that cuts the TCP stream halfway through a 200 KB message.
    const proxy = await cuttingProxy(bus.emulator.port);
    const viaProxy = new ServiceBusClient(
      `Endpoint=sb://127.0.0.1:${proxy.port};SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=SAS_KEY_VALUE;UseDevelopmentEmulator=true;`,
      {
        retryOptions: { maxRetries: 0, timeoutInMs: PATIENCE_MS },
      },
    );
    try {
      const sender = viaProxy.createSender(Q.cut);
      await sender.sendMessages({ body: 'warm-up' });
      proxy.arm(100_000);
      // Act: the SDK does not fail a send on a dropped connection before its operation timeout, so the send is
      // given up once the proxy has cut the stream (the broker never got the whole message, so nothing can ack it).
      const giveUp = new AbortController();
      void proxy.cut.then(() => giveUp.abort());
      const err = await sender
        .sendMessages({ body: 'x'.repeat(200_000) }, { abortSignal: giveUp.signal })
        .catch((e: unknown) => e);
      // Assess: the sender saw a failure, the broker kept only the complete message.
      expect(err).toBeInstanceOf(Error);
      // No pause needed: the proxy cut the broker's side first and this process serves both, so the broker had read
      // the end of its stream before the SDK saw its own, and the peek is a later round trip.
      const peeked = await peekEverything(bus.client.createReceiver(Q.cut), 10);
      expect(peeked.map((m) => m.body)).toEqual(['warm-up']);
      await stillServes();
    } finally {
      await viaProxy.close().catch(() => {});
      proxy.server.close();
    }
  });

  it('rejects an oversize message (256 KB default) with MessageSizeExceeded', async () => {
    const sender = bus.client.createSender(Q.big);
    const err = await sender.sendMessages({ body: 'y'.repeat(300 * 1024) }).catch((e: unknown) => e);
    expect(isServiceBusError(err) && err.code).toBe('MessageSizeExceeded');
    await sender.sendMessages({ body: 'y'.repeat(200 * 1024) });
    expect(await bus.client.createReceiver(Q.big).peekMessages(5)).toHaveLength(1);
    await stillServes();
  });

  it('keeps an acceptance and a rejection apart when both are settled in the same tick', async () => {
    // rhea writes consecutive dispositions of one tick as one frame with the first outcome; the broker must not
    // let that turn the oversize message's rejection into an acceptance.
    const proxy = await holdingProxy(bus.emulator.port);
    const conn = await rawConnect(proxy.port, { tcp_no_delay: true });
    try {
      const sender = conn.open_sender(Q.small);
      await new Promise<void>((resolve) => sender.once('sendable', () => resolve()));
      const bigBody = 'b'.repeat(2000);
      proxy.hold((held) => held.includes('small') && held.includes(bigBody));
      const outcome = (d: Delivery): Promise<string> =>
        new Promise((resolve) => {
          sender.on('accepted', (ctx) => ctx.delivery === d && resolve('accepted'));
          sender.on(
            'rejected',
            (ctx) => ctx.delivery === d && resolve(`rejected ${String(ctx.delivery?.remote_state?.error?.condition)}`),
          );
        });
      // The proxy hands both transfers to the broker in one read, so it settles them in one tick.
      const small = sender.send({ body: 'small' } as Message);
      const big = sender.send({ body: bigBody } as Message);
      expect(await Promise.all([outcome(small), outcome(big)])).toEqual([
        'accepted',
        'rejected amqp:link:message-size-exceeded',
      ]);
    } finally {
      conn.close();
      proxy.server.close();
    }
  });

  it('answers an unknown entity with amqp:not-found, and the SDK with MessagingEntityNotFound', async () => {
    const conn = await rawConnect(bus.emulator.port);
    try {
      expect((await attachError(conn, 'sender', 'nowhere'))?.condition).toBe('amqp:not-found');
      expect((await attachError(conn, 'receiver', 'nowhere'))?.condition).toBe('amqp:not-found');
      expect(await attachError(conn, 'receiver', `${Q.ok}/$DeadLetterQueue`)).toBeUndefined();
    } finally {
      conn.close();
    }
    const err = await bus.client
      .createReceiver('nowhere')
      .receiveMessages(1, { maxWaitTimeInMs: 500 })
      .catch((e: unknown) => e);
    expect(isServiceBusError(err) && err.code).toBe('MessagingEntityNotFound');
    await stillServes();
  });
});
