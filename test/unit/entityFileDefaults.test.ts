import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CORE_DEFAULTS, resolveCoreConfig } from '../../src/core/config.js';

/** Entity properties as the Service Bus `Config.json` (and `infra/servicebus.config.json`) spell them. */
interface QueueEntityProperties {
  LockDuration?: string;
  MaxDeliveryCount?: number;
  DefaultMessageTimeToLive?: string;
}

/** The `orders` queue's properties as the entity file (the production queue definition) spells them. */
async function ordersQueueProperties(): Promise<QueueEntityProperties> {
  const file = JSON.parse(await readFile(new URL('../../infra/servicebus.config.json', import.meta.url), 'utf8')) as {
    UserConfig: { Namespaces: { Queues: { Name: string; Properties: QueueEntityProperties }[] }[] };
  };
  const queues = file.UserConfig.Namespaces.flatMap((n) => n.Queues).filter((q) => q.Name === 'orders');
  expect(queues).toHaveLength(1);
  return queues[0]!.Properties;
}

describe("the core's defaults and the entity file", () => {
  it("default to the orders queue's LockDuration, MaxDeliveryCount and DefaultMessageTimeToLive", async () => {
    // Prepare
    const properties = await ordersQueueProperties();
    // Act: the file's properties read as the settings that name them, and the defaults
    const fromFile = resolveCoreConfig({
      ORDERS_LOCK_DURATION: properties.LockDuration,
      ORDERS_MAX_DELIVERY_COUNT: String(properties.MaxDeliveryCount),
      ORDERS_MESSAGE_TTL: properties.DefaultMessageTimeToLive,
    }).ordersQueue;
    const defaults = resolveCoreConfig({});
    // Assess: every property is set in the file (none falls back to a default), and the defaults equal them.
    expect(properties).toEqual(
      expect.objectContaining({
        LockDuration: expect.any(String),
        MaxDeliveryCount: expect.any(Number),
        DefaultMessageTimeToLive: expect.any(String),
      }),
    );
    expect(fromFile).toEqual({
      lockDurationMs: CORE_DEFAULTS.lockDurationMs,
      maxDeliveryCount: CORE_DEFAULTS.maxDeliveryCount,
      messageTtlMs: CORE_DEFAULTS.messageTtlMs,
    });
    expect(defaults.ordersQueue).toEqual(fromFile);
  });
});
