import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalHost } from '../src/localHost.js';
import type { FunctionRegistration } from '../src/registrations.js';
import { capturingLogger } from './support/logCapture.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'local-host-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('startLocalHost without emulators', () => {
  it('serves the given functions with settings from local.settings.json in process.env, and restores it on close', async () => {
    // Prepare
    const key = `LOCAL_HOST_SETTING_${process.pid}`;
    const settingsFile = join(dir, 'local.settings.json');
    await writeFile(settingsFile, JSON.stringify({ IsEncrypted: false, Values: { [key]: 'from-file' } }));
    const registrations: FunctionRegistration[] = [
      {
        kind: 'http',
        name: 'setting',
        options: { route: 'setting', methods: ['GET'], handler: () => ({ body: process.env[key] ?? 'missing' }) },
      },
    ];
    const { logger } = capturingLogger();
    // Act
    const host = await startLocalHost({ emulators: false, httpPort: 0, settingsFile, registrations, logger });
    try {
      // Assess
      expect(host.httpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
      expect(await (await fetch(`${host.httpUrl}/setting`)).text()).toBe('from-file');
    } finally {
      await host.close();
    }
    expect(process.env[key]).toBeUndefined();
  });

  it('fails with the setting name when a Service Bus trigger has no connection', async () => {
    const registrations: FunctionRegistration[] = [
      {
        kind: 'serviceBusQueue',
        name: 'q',
        options: { connection: 'MissingConnection', queueName: 'q', handler: () => undefined },
      },
    ];
    const { logger } = capturingLogger();
    await expect(
      startLocalHost({ emulators: false, httpPort: 0, settingsFile: join(dir, 'absent.json'), registrations, logger }),
    ).rejects.toThrow(/"MissingConnection" is missing/);
  });
});
