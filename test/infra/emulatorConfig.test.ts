import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clampForDockerEmulator, durationToMs } from '../../scripts/writeEmulatorConfig.js';

const root = resolve(import.meta.dirname, '..', '..');
const entityFile: unknown = JSON.parse(readFileSync(join(root, 'infra', 'servicebus.config.json'), 'utf8'));

function config(properties: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    UserConfig: {
      Namespaces: [{ Name: 'prod', Queues: [{ Name: 'q', Properties: properties }], Topics: [], ...extra }],
      Logging: { Type: 'File' },
    },
  };
}

function queueProperties(input: unknown): Record<string, unknown> | undefined {
  return clampForDockerEmulator(input).UserConfig.Namespaces[0]?.Queues?.[0]?.Properties;
}

describe('durationToMs', () => {
  it('reads day and time ISO 8601 durations', () => {
    expect(durationToMs('P14D')).toBe(14 * 86_400_000);
    expect(durationToMs('PT1H30M')).toBe(5_400_000);
    expect(durationToMs('P1DT2H3M4.5S')).toBe(86_400_000 + 7_200_000 + 180_000 + 4_500);
    expect(durationToMs('PT0S')).toBe(0);
  });

  it('rejects years, months, weeks and malformed strings', () => {
    for (const bad of ['P1Y', 'P1M', 'P2W', 'P', 'PT', 'P1DT', '00:05:00', 'pt1m'])
      expect(() => durationToMs(bad), bad).toThrow(TypeError);
  });
});

describe('clampForDockerEmulator', () => {
  it('clamps the production entity file to the Docker emulator limits and keeps names and flags', () => {
    const clamped = clampForDockerEmulator(entityFile);
    const namespace = clamped.UserConfig.Namespaces[0];
    expect(namespace?.Name).toBe('sbemulatorns');
    expect(
      namespace?.Queues?.map((q) => [q.Name, q.Properties?.RequiresSession, q.Properties?.RequiresDuplicateDetection]),
    ).toEqual([
      ['ledger', false, true],
      ['orders', true, true],
    ]);
    for (const queue of namespace?.Queues ?? []) {
      expect(queue.Properties).toMatchObject({
        DuplicateDetectionHistoryTimeWindow: 'PT5M',
        DefaultMessageTimeToLive: 'PT1H',
        LockDuration: 'PT1M',
        MaxDeliveryCount: 10,
      });
    }
    // The order-events topic and its session-enabled subscription `all`, which takes every event (no rules).
    expect(namespace?.Topics).toMatchObject([
      {
        Name: 'order-events',
        Properties: {
          RequiresDuplicateDetection: true,
          DuplicateDetectionHistoryTimeWindow: 'PT5M',
          DefaultMessageTimeToLive: 'PT1H',
        },
        Subscriptions: [
          {
            Name: 'all',
            Properties: {
              RequiresSession: true,
              DeadLetteringOnMessageExpiration: false,
              DefaultMessageTimeToLive: 'PT1H',
              LockDuration: 'PT1M',
              MaxDeliveryCount: 10,
            },
            Rules: [],
          },
        ],
      },
    ]);
  });

  it('lowers values above each limit to the limit', () => {
    expect(
      queueProperties(
        config({
          DuplicateDetectionHistoryTimeWindow: 'P7D',
          LockDuration: 'PT10M',
          DefaultMessageTimeToLive: 'P1D',
          MaxDeliveryCount: 2000,
        }),
      ),
    ).toEqual({
      DuplicateDetectionHistoryTimeWindow: 'PT5M',
      LockDuration: 'PT5M',
      DefaultMessageTimeToLive: 'PT1H',
      MaxDeliveryCount: 10,
    });
  });

  it('drops AutoDeleteOnIdle, which the Docker emulator does not have', () => {
    expect(queueProperties(config({ AutoDeleteOnIdle: 'PT1H', RequiresSession: true }))).toEqual({
      RequiresSession: true,
    });
  });

  it('raises a duplicate-detection window below PT5S to PT5S', () => {
    expect(queueProperties(config({ DuplicateDetectionHistoryTimeWindow: 'PT1S' }))).toEqual({
      DuplicateDetectionHistoryTimeWindow: 'PT5S',
    });
  });

  it('keeps values within the limits exactly as written, and every other property', () => {
    const properties = {
      DuplicateDetectionHistoryTimeWindow: 'PT2M',
      LockDuration: 'PT30S',
      DefaultMessageTimeToLive: 'PT45M',
      MaxDeliveryCount: 3,
      RequiresSession: true,
      ForwardTo: 'x',
    };
    expect(queueProperties(config(properties))).toEqual(properties);
  });

  it('clamps topic and subscription properties too', () => {
    const input = config(
      {},
      {
        Topics: [
          {
            Name: 't',
            Properties: { DefaultMessageTimeToLive: 'P1D' },
            Subscriptions: [{ Name: 's', Properties: { LockDuration: 'PT6M', MaxDeliveryCount: 50 } }],
          },
        ],
      },
    );
    const topic = clampForDockerEmulator(input).UserConfig.Namespaces[0]?.Topics?.[0];
    expect(topic?.Properties).toEqual({ DefaultMessageTimeToLive: 'PT1H' });
    expect(topic?.Subscriptions?.[0]?.Properties).toEqual({ LockDuration: 'PT5M', MaxDeliveryCount: 10 });
  });

  it('does not modify its input and keeps top-level options such as Logging', () => {
    const input = config({ LockDuration: 'PT10M' });
    const before = JSON.stringify(input);
    const clamped = clampForDockerEmulator(input);
    expect(JSON.stringify(input)).toBe(before);
    expect(clamped.UserConfig).toHaveProperty('Logging', { Type: 'File' });
  });

  it('rejects files that are not in the Config.json format', () => {
    expect(() => clampForDockerEmulator({ Namespaces: [] })).toThrow();
    expect(() => clampForDockerEmulator(config({ MaxDeliveryCount: 'ten' }))).toThrow();
    expect(() => clampForDockerEmulator(config({ LockDuration: '5 minutes' }))).toThrow(TypeError);
  });
});
