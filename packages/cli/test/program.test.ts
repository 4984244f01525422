import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../src/io.js';
import { runCli } from '../src/program.js';
import { EMBEDDED_STACK_SETTINGS, resolveCliSettings, requireServiceBus } from '../src/settings.js';
import { editBody } from '../src/dlq/editor.js';

function captureIo(): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, exitCode: 0, out: (t) => stdout.push(t), err: (t) => stderr.push(t) };
}

describe('convoy program', () => {
  it.each(['send', 'verify', 'dlq', 'dlq list', 'dlq show', 'dlq resubmit', 'dlq purge', 'sessions'])(
    'prints help for %s and exits 0',
    async (command) => {
      const io = captureIo();
      expect(await runCli([...command.split(' '), '--help'], io)).toBe(0);
      expect(io.stdout.join('\n')).toContain(`Usage: convoy ${command}`);
    },
  );

  it('exits 2 with what to do when an option is invalid or a setting is missing', async () => {
    const bad = captureIo();
    expect(await runCli(['send', '--duplicates', '2'], bad)).toBe(2);
    expect(bad.stderr.join('\n')).toMatch(/ratio between 0 and 1/);
    const noRate = captureIo();
    expect(await runCli(['send', '--rate', '0'], noRate)).toBe(2);
    expect(noRate.stderr.join('\n')).toMatch(/--rate.*whole number ≥ 1/);
    const dir = mkdtempSync(join(tmpdir(), 'convoy-cli-'));
    const missing = captureIo();
    expect(await runCli(['verify', '--file', join(dir, 'none.json')], missing)).toBe(2);
    expect(missing.stderr.join('\n')).toMatch(/Run `convoy send` first/);
  });
});

describe('resolveCliSettings', () => {
  it('takes flags over the environment over local.settings.json Values', () => {
    const dir = mkdtempSync(join(tmpdir(), 'convoy-settings-'));
    writeFileSync(
      join(dir, 'local.settings.json'),
      JSON.stringify({
        Values: { ServiceBusConnection: 'file', CONVOY_HTTP: 'http://file:1', CONVOY_FUNCTION_KEY: 'k-file' },
      }),
    );
    expect(resolveCliSettings({}, {}, dir)).toMatchObject({
      app: { ServiceBusConnection: 'file' },
      httpBaseUrl: 'http://file:1',
      functionKey: 'k-file',
    });
    expect(resolveCliSettings({}, { ServiceBusConnection: 'env', CONVOY_HTTP: 'http://env:2/' }, dir)).toMatchObject({
      app: { ServiceBusConnection: 'env' },
      httpBaseUrl: 'http://env:2',
    });
    expect(
      resolveCliSettings(
        { servicebus: 'flag', http: 'http://flag:3', functionKey: 'k' },
        { ServiceBusConnection: 'env' },
        dir,
      ),
    ).toMatchObject({
      app: { ServiceBusConnection: 'flag' },
      httpBaseUrl: 'http://flag:3',
      functionKey: 'k',
    });
  });

  it('defaults to the embedded stack of npm start when nothing is configured', () => {
    const settings = resolveCliSettings({}, {}, mkdtempSync(join(tmpdir(), 'convoy-settings-')));
    expect(settings.httpBaseUrl).toBe('http://127.0.0.1:7071');
    expect(settings.app.ServiceBusConnection).toBe(EMBEDDED_STACK_SETTINGS.ServiceBusConnection);
    expect(settings.app.CosmosConnection).toBe(EMBEDDED_STACK_SETTINGS.CosmosConnection);
    expect(() => requireServiceBus(settings)).not.toThrow();
  });

  it('keeps identity-based settings instead of falling back to the emulator', () => {
    const env = {
      ServiceBusConnection__fullyQualifiedNamespace: 'convoy.servicebus.windows.net',
      CosmosConnection__accountEndpoint: 'https://convoy.documents.azure.com/',
    };
    const settings = resolveCliSettings({}, env, mkdtempSync(join(tmpdir(), 'convoy-settings-')));
    expect(settings.app.ServiceBusConnection).toBeUndefined();
    expect(settings.app.CosmosConnection).toBeUndefined();
  });

  it('says how to configure Service Bus when the configured connection is unusable', () => {
    const settings = resolveCliSettings(
      { servicebus: 'not a connection string' },
      {},
      mkdtempSync(join(tmpdir(), 'convoy-settings-')),
    );
    expect(() => requireServiceBus(settings)).toThrow(
      expect.objectContaining({ code: 'Settings', hint: expect.stringContaining('--servicebus') }),
    );
  });
});

describe('editBody', () => {
  it('returns what the editor saved, and refuses a body that is no longer JSON', () => {
    const script = (text: string) => `node -e "require('fs').writeFileSync(process.argv[1], '${text}')"`;
    expect(editBody({ a: 1 }, 'e-1', { EDITOR: script('{\\"a\\":2}') })).toEqual({ a: 2 });
    expect(() => editBody({ a: 1 }, 'e-1', { EDITOR: script('nope') })).toThrow(/not JSON/);
    expect(() => editBody({ a: 1 }, 'e-1', {})).toThrow(/needs an editor/);
  });
});
