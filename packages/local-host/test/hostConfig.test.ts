import { describe, expect, it } from 'vitest';
import { applyToProcessEnv, mergeSettings } from '../src/config/appSettings.js';
import {
  defaultServiceBusHostOptions,
  loadServiceBusHostOptions,
  serviceBusHostOptionsFrom,
} from '../src/config/serviceBusHostOptions.js';
import { parseTimeSpan } from '../src/config/timeSpan.js';
import { repoPath } from '../src/paths.js';

describe('host.json Service Bus settings', () => {
  it('parses TimeSpans with days and fractions', () => {
    expect(parseTimeSpan('00:05:00', 'x')).toBe(300_000);
    expect(parseTimeSpan('1.02:00:01.5', 'x')).toBe(((24 + 2) * 3600 + 1) * 1000 + 500);
    expect(() => parseTimeSpan('5m', 'sessionIdleTimeout')).toThrow(/sessionIdleTimeout/);
  });

  it("reads the repository's host.json", async () => {
    expect(await loadServiceBusHostOptions(repoPath('host.json'))).toEqual({
      maxConcurrentSessions: 8,
      maxConcurrentCalls: 16,
      sessionIdleTimeoutMs: 1_000,
      maxAutoLockRenewalDurationMs: 300_000,
      autoCompleteMessages: false,
    });
  });

  it('falls back to the host defaults and rejects nonsense', () => {
    expect(serviceBusHostOptionsFrom({ version: '2.0' })).toEqual(defaultServiceBusHostOptions);
    expect(() => serviceBusHostOptionsFrom({ extensions: { serviceBus: { maxConcurrentSessions: 0 } } })).toThrow(
      /maxConcurrentSessions/,
    );
  });
});

describe('app settings', () => {
  it('lets the environment win over local.settings.json and the emulators win over both', () => {
    const merged = mergeSettings(
      {
        ServiceBusConnection: 'file',
        ServiceBusConnection__fullyQualifiedNamespace: 'ns',
        LOG_LEVEL: 'info',
        A: 'file',
      },
      { A: 'env' },
      { ServiceBusConnection: 'emulator' },
    );
    expect(merged.ServiceBusConnection).toBe('emulator');
    expect(merged.ServiceBusConnection__fullyQualifiedNamespace).toBeUndefined();
    expect(merged.A).toBe('env');
    expect(merged.LOG_LEVEL).toBe('info');
  });

  it('applies settings to process.env and restores it', () => {
    const key = `LOCAL_HOST_TEST_${process.pid}`;
    process.env[`${key}__clientId`] = 'dropped';
    const restore = applyToProcessEnv(mergeSettings({}, process.env, { [key]: 'set' }));
    expect(process.env[key]).toBe('set');
    expect(process.env[`${key}__clientId`]).toBeUndefined();
    restore();
    expect(process.env[key]).toBeUndefined();
    expect(process.env[`${key}__clientId`]).toBe('dropped');
    delete process.env[`${key}__clientId`];
  });
});
