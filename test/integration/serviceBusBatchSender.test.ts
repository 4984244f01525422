import { ServiceBusClient } from '@azure/service-bus';
import type { ServiceBusMessage } from '@azure/service-bus';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessageTooLargeError, sendInBatches } from '../../src/adapters/serviceBusBatchSender.js';
import { start } from '@ledger-convoy/servicebus-emulator';
import type { RunningEmulator } from '@ledger-convoy/servicebus-emulator';
import { peekEverything, receiveExactly } from '../support/serviceBusWaits.js';
import { testServiceBusConfig } from './support/stack.js';

let emulator: RunningEmulator;
let client: ServiceBusClient;

beforeAll(async () => {
  emulator = await start({ port: 0, adminPort: 0, config: testServiceBusConfig });
  client = new ServiceBusClient(emulator.connectionString, { retryOptions: { maxRetries: 0, timeoutInMs: 5_000 } });
});

afterAll(async () => {
  await client?.close();
  await emulator?.close();
});

describe('sendInBatches on the Service Bus emulator', () => {
  it('sends in as few batches as fit, in order, calling the hook before each', async () => {
    // Prepare
    const messages: ServiceBusMessage[] = Array.from({ length: 30 }, (_, i) => ({
      messageId: `m-${i}`,
      body: { i, pad: 'x'.repeat(200) },
    }));
    const sender = client.createSender('ledger');
    const hooked: number[] = [];
    // Act
    const result = await sendInBatches(sender, messages, {
      maxSizeInBytes: 2_000,
      beforeSend: async (index) => void hooked.push(index),
    });
    const receiver = client.createReceiver('ledger', { receiveMode: 'receiveAndDelete' });
    const received = await receiveExactly(receiver, 30);
    const rest = await peekEverything(receiver);
    await Promise.all([receiver.close(), sender.close()]);
    // Assess: ~250 bytes a message, so about 7 per 2,000-byte batch.
    expect(result.messages).toBe(30);
    expect(result.batches).toBeGreaterThanOrEqual(4);
    expect(result.batches).toBeLessThanOrEqual(6);
    expect(hooked).toEqual(Array.from({ length: result.batches }, (_, i) => i));
    expect(received.map((m) => m.messageId)).toEqual(messages.map((m) => m.messageId));
    expect(rest).toEqual([]);
  });

  it('sends everything in one batch when it fits', async () => {
    const sender = client.createSender('ledger');
    const result = await sendInBatches(sender, [{ body: 1 }, { body: 2 }, { body: 3 }]);
    const receiver = client.createReceiver('ledger', { receiveMode: 'receiveAndDelete' });
    // Taken off the queue, so the tests below start from an empty one.
    expect(await receiveExactly(receiver, 3)).toHaveLength(3);
    await Promise.all([receiver.close(), sender.close()]);
    expect(result).toEqual({ messages: 3, batches: 1 });
  });

  it('refuses a message that cannot fit an empty batch, before sending anything', async () => {
    const sender = client.createSender('ledger');
    const act = sendInBatches(sender, [{ messageId: 'huge', body: 'x'.repeat(5_000) }], { maxSizeInBytes: 1_000 });
    await expect(act).rejects.toBeInstanceOf(MessageTooLargeError);
    await expect(act).rejects.toMatchObject({ code: 'MessageTooLarge', messageId: 'huge', index: 0 });
    await sender.close();
  });

  it('sends nothing when a message further down the list cannot fit, even after earlier batches filled up', async () => {
    // Prepare: three batches' worth of small messages, then one that fits no batch.
    const small: ServiceBusMessage[] = Array.from({ length: 20 }, (_, i) => ({
      messageId: `s-${i}`,
      body: { i, pad: 'x'.repeat(200) },
    }));
    const sender = client.createSender('ledger');
    const hooked: number[] = [];
    // Act
    const act = sendInBatches(sender, [...small, { messageId: 'huge', body: 'x'.repeat(5_000) }], {
      maxSizeInBytes: 2_000,
      beforeSend: async (index) => void hooked.push(index),
    });
    // Assess
    await expect(act).rejects.toMatchObject({ code: 'MessageTooLarge', messageId: 'huge', index: 20 });
    const receiver = client.createReceiver('ledger', { receiveMode: 'receiveAndDelete' });
    const received = await peekEverything(receiver);
    await Promise.all([receiver.close(), sender.close()]);
    expect(received).toEqual([]);
    expect(hooked).toEqual([]);
  });
});
