import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceBusClient } from '@azure/service-bus';
import { afterAll, describe, expect, it } from 'vitest';
import { peekEverything, receiveExactly } from '../../../test/support/serviceBusWaits.js';
import { configWith, fastClientOptions, queue } from './helpers.js';
import { runCommand } from './support/command.js';

const Q = { plain: 'durable-plain', sessions: 'durable-sessions' };

/** Starts the emulator's command as a child process on free ports with durable data in `dataDir`. */
function launch(configPath: string, dataDir: string, logFile: string) {
  return runCommand(
    ['--port', '0', '--admin-port', '0', '--admin-https-port', '0', '--config', configPath, '--data-dir', dataDir],
    logFile,
  );
}

describe('--data-dir durability', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-durable-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loses nothing acknowledged across kill -9: messages, delivery counts, session state, deferrals', async () => {
    // Prepare
    const configPath = join(dir, 'config.json');
    writeFileSync(
      configPath,
      JSON.stringify(
        configWith([
          queue(Q.plain, { RequiresDuplicateDetection: true }),
          queue(Q.sessions, { RequiresSession: true }),
        ]),
      ),
    );
    const dataDir = join(dir, 'data');
    const first = await launch(configPath, dataDir, join(dir, 'emulator.log'));
    const client = new ServiceBusClient(first.connectionString, fastClientOptions);
    const sender = client.createSender(Q.plain);
    await sender.sendMessages(
      [...Array(50).keys()].map((i) => ({ body: i, messageId: `m-${i}`, applicationProperties: { big: 2 ** 40 } })),
    );
    const receiver = client.createReceiver(Q.plain, { maxAutoLockRenewalDurationInMs: 0 });
    const [firstMsg, second] = await receiveExactly(receiver, 2);
    await receiver.completeMessage(firstMsg as never);
    await receiver.abandonMessage(second as never);
    // The abandoned message comes back first (FIFO), now on its second delivery; defer it.
    const [third] = await receiveExactly(receiver, 1);
    expect([third?.body, third?.deliveryCount]).toEqual([1, 1]);
    await receiver.deferMessage(third as never);
    await client.createSender(Q.sessions).sendMessages([
      { body: 'a', sessionId: 'S' },
      { body: 'b', sessionId: 'S' },
    ]);
    const session = await client.acceptSession(Q.sessions, 'S');
    await session.setSessionState({ step: 1 });
    // Act: crash without any chance to flush, then restart on the same directory.
    await first.kill9();
    await client.close().catch(() => {});
    const second2 = await launch(configPath, dataDir, join(dir, 'emulator.log'));
    const after = new ServiceBusClient(second2.connectionString, fastClientOptions);
    try {
      // Assess
      const r = after.createReceiver(Q.plain, { receiveMode: 'receiveAndDelete' });
      const got = await receiveExactly(r, 48);
      expect(got.map((m) => m.body)).toEqual([...Array(50).keys()].slice(2));
      expect(got[0]?.applicationProperties?.big).toBe(2 ** 40);
      // Nothing else came back: only the deferred message is left.
      expect((await peekEverything(r)).map((m) => [m.body, m.state])).toEqual([[1, 'deferred']]);
      const [deferred] = await after.createReceiver(Q.plain).receiveDeferredMessages(third?.sequenceNumber as never);
      expect([deferred?.body, deferred?.deliveryCount]).toEqual([1, 2]);
      // Duplicate detection history survives as well.
      await after.createSender(Q.plain).sendMessages({ body: 'again', messageId: 'm-5' });
      expect((await peekEverything(r)).map((m) => m.body)).toEqual([1]);
      const s = await after.acceptSession(Q.sessions, 'S');
      expect(await s.getSessionState()).toEqual({ step: 1 });
      expect((await receiveExactly(s, 2)).map((m) => m.body)).toEqual(['a', 'b']);
    } finally {
      await after.close();
      await second2.kill9();
    }
    // Two child processes start here: a hang guard far above their start-up on a loaded machine.
  }, 120_000);
});
