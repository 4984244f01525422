import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, start } from '../src/index.js';
import { configWith, queue } from './helpers.js';

describe('Config.json validation', () => {
  it('reads the repository entity file', () => {
    const cfg = loadConfig(new URL('../../../infra/servicebus.config.json', import.meta.url).pathname);
    const orders = cfg.queues.find((q) => q.name === 'orders');
    expect(orders?.settings).toMatchObject({
      requiresSession: true,
      lockDurationMs: 60_000,
      maxDeliveryCount: 10,
      duplicateDetectionWindowMs: 3_600_000,
    });
    expect(orders?.settings.defaultTtlMs).toBe(14 * 24 * 3_600_000);
  });

  it.each([
    [{ LockDuration: 'one minute' }, /queue "bad": field "Properties.LockDuration"/],
    [{ MaxDeliveryCount: 0 }, /queue "bad": field "Properties.MaxDeliveryCount"/],
    [{ RequiresSession: 'yes' }, /queue "bad": field "Properties.RequiresSession"/],
    [{ ForwardTo: 'missing' }, /queue "bad": field "Properties.ForwardTo": unknown entity "missing"/],
  ])('names the entity and field of an invalid property (%o)', (props, message) => {
    expect(() => loadConfig(configWith([queue('bad', props as never)]))).toThrow(message);
  });

  it('rejects a config without namespaces and a duplicate entity name', () => {
    expect(() => loadConfig({ UserConfig: { Namespaces: [] } })).toThrow(ConfigError);
    expect(() => loadConfig(configWith([queue('a'), queue('A')]))).toThrow(/entity "A": field "Name": duplicate/);
  });

  it('fails at start, before listening, on an invalid config', async () => {
    await expect(
      start({ port: 0, adminPort: 0, config: configWith([queue('q', { LockDuration: 'PTX' } as never)]) }),
    ).rejects.toThrow(/queue "q"/);
  });
});
