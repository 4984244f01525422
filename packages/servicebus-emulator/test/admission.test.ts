import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceBusClient } from '@azure/service-bus';
import type { Connection, Delivery, Message } from 'rhea';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start } from '../src/index.js';
import type { RunningEmulator } from '../src/index.js';
import { peekEverything, receiveExactly } from '../../../test/support/serviceBusWaits.js';
import { configWith, fastClientOptions, queue, startBus } from './helpers.js';
import type { TestBus } from './helpers.js';
import { rawConnect } from './rawAmqp.js';

const Q = { sessions: 'admit-sessions', plain: 'admit-plain', dedup: 'admit-dedup' };

/** Sends one message on a raw sender and resolves with the broker's outcome (and its error, when rejected). */
function rawSend(
  conn: Connection,
  address: string,
  message: Message,
): Promise<{ outcome: string; condition?: string }> {
  return new Promise((resolve) => {
    const sender = conn.open_sender({ target: { address } } as never);
    sender.once('sendable', () => sender.send(message));
    sender.once('accepted', () => {
      sender.close();
      resolve({ outcome: 'accepted' });
    });
    sender.once('rejected', (ctx) => {
      sender.close();
      const state = (ctx.delivery as Delivery & { remote_state?: { error?: { condition?: string } } }).remote_state;
      resolve({ outcome: 'rejected', condition: state?.error?.condition });
    });
  });
}

describe('what the broker admits from a send', () => {
  let bus: TestBus;
  let conn: Connection;
  beforeAll(async () => {
    bus = await startBus(configWith([queue(Q.sessions, { RequiresSession: true }), queue(Q.plain)]));
    conn = await rawConnect(bus.emulator.port);
  });
  afterAll(async () => {
    conn.close();
    await bus.close();
  });

  const activeIn = (name: string): number => bus.emulator.broker.stats().find((s) => s.name === name)?.active ?? -1;

  it('refuses a message without SessionId sent to a session-enabled queue, as Service Bus does', async () => {
    const send = bus.client.createSender(Q.sessions).sendMessages({ body: 'no session' });
    await expect(send).rejects.toThrow(/SessionId was not set on a message, and it cannot be sent to the entity/);
    expect(activeIn(Q.sessions)).toBe(0);
  });

  it('admits a batch all or nothing: one message without SessionId refuses the whole batch', async () => {
    const sender = bus.client.createSender(Q.sessions);
    const batch = await sender.createMessageBatch();
    for (const m of [{ body: 1, sessionId: 'a' }, { body: 2 }, { body: 3, sessionId: 'b' }])
      expect(batch.tryAddMessage(m)).toBe(true);
    await expect(sender.sendMessages(batch)).rejects.toThrow(/SessionId was not set/);
    expect(activeIn(Q.sessions)).toBe(0);
  });

  it('refuses message ids and session ids over 128 characters, and accepts 128', async () => {
    const long = 'x'.repeat(129);
    expect(await rawSend(conn, Q.plain, { message_id: long, body: 'id' } as Message)).toEqual({
      outcome: 'rejected',
      condition: 'com.microsoft:argument-out-of-range',
    });
    expect(await rawSend(conn, Q.sessions, { message_id: 'm', group_id: long, body: 'sid' } as Message)).toEqual({
      outcome: 'rejected',
      condition: 'com.microsoft:argument-out-of-range',
    });
    expect(activeIn(Q.plain)).toBe(0);
    expect(await rawSend(conn, Q.plain, { message_id: 'y'.repeat(128), body: 'ok' } as Message)).toEqual({
      outcome: 'accepted',
    });
    const [m] = await receiveExactly(bus.client.createReceiver(Q.plain, { receiveMode: 'receiveAndDelete' }), 1);
    expect(m?.messageId).toBe('y'.repeat(128));
  });
});

describe('duplicate detection with a durable store', () => {
  let dir: string;
  let emulator: RunningEmulator;
  let client: ServiceBusClient;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-admit-'));
    emulator = await start({
      port: 0,
      adminPort: 0,
      dataDir: dir,
      config: configWith([
        queue(Q.dedup, { RequiresDuplicateDetection: true, DuplicateDetectionHistoryTimeWindow: 'PT5M' }),
      ]),
    });
    client = new ServiceBusClient(emulator.connectionString, fastClientOptions);
  });
  afterAll(async () => {
    await client.close();
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records a message id only once the message is on disk: a send refused on the flush and retried is kept', async () => {
    // Prepare: the next flush of the store fails (a full disk), the one after succeeds.
    const store = emulator.broker.store as { flush(): Promise<void> };
    const flush = store.flush.bind(store);
    store.flush = () => {
      store.flush = flush;
      return Promise.reject(new Error('no space left on device'));
    };
    const sender = client.createSender(Q.dedup);

    // Act + Assess: the refused send leaves nothing behind, the retry is not taken for a duplicate.
    await expect(sender.sendMessages({ body: 'first try', messageId: 'dup-1' })).rejects.toThrow(/Store write failed/);
    const receiver = client.createReceiver(Q.dedup);
    expect(await peekEverything(receiver)).toEqual([]);
    await sender.sendMessages({ body: 'retry', messageId: 'dup-1' });
    const [m] = await receiveExactly(receiver, 1);
    expect(m?.body).toBe('retry');
    await receiver.completeMessage(m as never);
    // A real duplicate inside the window is still dropped.
    await sender.sendMessages({ body: 'again', messageId: 'dup-1' });
    expect(await peekEverything(receiver)).toEqual([]);
  });

  it('writes a message id with its message: a broker that stops right after the write still drops the retry', async () => {
    // Prepare: keep the data directory exactly as it is when the send's write is on disk, before anything else runs.
    const store = emulator.broker.store as { flush(): Promise<void> };
    const flush = store.flush.bind(store);
    const onDisk = mkdtempSync(join(tmpdir(), 'sb-admit-crash-'));
    store.flush = async () => {
      await flush();
      store.flush = flush;
      cpSync(dir, onDisk, { recursive: true });
    };
    await client.createSender(Q.dedup).sendMessages({ body: 'sent once', messageId: 'dup-2' });

    // Act: a broker started on that directory (the first one stopped there) gets the client's retry.
    const restarted = await start({
      port: 0,
      adminPort: 0,
      dataDir: onDisk,
      config: configWith([
        queue(Q.dedup, { RequiresDuplicateDetection: true, DuplicateDetectionHistoryTimeWindow: 'PT5M' }),
      ]),
    });
    const again = new ServiceBusClient(restarted.connectionString, fastClientOptions);
    try {
      await again.createSender(Q.dedup).sendMessages({ body: 'retried after the stop', messageId: 'dup-2' });

      // Assess: one message, the first.
      const bodies = (await peekEverything(again.createReceiver(Q.dedup))).map((m) => m.body as string);
      expect(bodies).toEqual(['sent once']);
    } finally {
      await again.close();
      await restarted.close();
      rmSync(onDisk, { recursive: true, force: true });
    }
  });
});
