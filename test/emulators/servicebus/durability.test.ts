import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ServiceBusClient } from '@azure/service-bus';
import { afterAll, describe, expect, it } from 'vitest';
import { configWith, fastClientOptions, queue } from './helpers.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const Q = { plain: 'durable-plain', sessions: 'durable-sessions' };

/** Starts the CLI as a child process and resolves with it and its connection string. */
function launch(configPath: string, dataDir: string): Promise<{ child: ChildProcess; connectionString: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'emulators/servicebus/main.ts', '--port', '0', '--admin-port', '0', '--config', configPath, '--data-dir', dataDir], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.includes('"listening"'));
      if (line) resolve({ child, connectionString: (JSON.parse(line) as { connectionString: string }).connectionString });
    });
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => reject(new Error(`emulator exited (${code}): ${out}`)));
  });
}

function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe('--data-dir durability', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-durable-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loses nothing acknowledged across kill -9: messages, delivery counts, session state, deferrals', async () => {
    // Prepare
    const configPath = join(dir, 'config.json');
    writeFileSync(configPath, JSON.stringify(configWith([queue(Q.plain, { RequiresDuplicateDetection: true }), queue(Q.sessions, { RequiresSession: true })])));
    const dataDir = join(dir, 'data');
    const first = await launch(configPath, dataDir);
    const client = new ServiceBusClient(first.connectionString, fastClientOptions);
    const sender = client.createSender(Q.plain);
    await sender.sendMessages([...Array(50).keys()].map((i) => ({ body: i, messageId: `m-${i}`, applicationProperties: { big: 2 ** 40 } })));
    const receiver = client.createReceiver(Q.plain, { maxAutoLockRenewalDurationInMs: 0 });
    const [firstMsg, second] = await receiver.receiveMessages(2, { maxWaitTimeInMs: 2000 });
    await receiver.completeMessage(firstMsg as never);
    await receiver.abandonMessage(second as never);
    // The abandoned message comes back first (FIFO), now on its second delivery; defer it.
    const [third] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    expect([third?.body, third?.deliveryCount]).toEqual([1, 1]);
    await receiver.deferMessage(third as never);
    await client.createSender(Q.sessions).sendMessages([{ body: 'a', sessionId: 'S' }, { body: 'b', sessionId: 'S' }]);
    const session = await client.acceptSession(Q.sessions, 'S');
    await session.setSessionState({ step: 1 });
    // Act: crash without any chance to flush, then restart on the same directory.
    await killHard(first.child);
    await client.close().catch(() => {});
    const second2 = await launch(configPath, dataDir);
    const after = new ServiceBusClient(second2.connectionString, fastClientOptions);
    try {
      // Assess
      const r = after.createReceiver(Q.plain, { receiveMode: 'receiveAndDelete' });
      const got = [];
      for (;;) {
        const ms = await r.receiveMessages(50, { maxWaitTimeInMs: 500 });
        if (ms.length === 0) break;
        got.push(...ms);
      }
      expect(got.map((m) => m.body)).toEqual([...Array(50).keys()].slice(2));
      expect(got[0]?.applicationProperties?.big).toBe(2 ** 40);
      const [deferred] = await after.createReceiver(Q.plain).receiveDeferredMessages(third?.sequenceNumber as never);
      expect([deferred?.body, deferred?.deliveryCount]).toEqual([1, 2]);
      // Duplicate detection history survives as well.
      await after.createSender(Q.plain).sendMessages({ body: 'again', messageId: 'm-5' });
      expect(await r.receiveMessages(1, { maxWaitTimeInMs: 300 })).toHaveLength(0);
      const s = await after.acceptSession(Q.sessions, 'S');
      expect(await s.getSessionState()).toEqual({ step: 1 });
      expect((await s.receiveMessages(2, { maxWaitTimeInMs: 2000 })).map((m) => m.body)).toEqual(['a', 'b']);
    } finally {
      await after.close();
      await killHard(second2.child);
    }
  }, 30_000);
});
