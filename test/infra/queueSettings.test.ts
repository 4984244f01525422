import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BicepCompiler } from '../../scripts/infraBuild.js';
import { locateBicepCompiler, REPO_ROOT, single, snapshotMainBicep } from './armTemplate.js';

const root = REPO_ROOT;
const mainBicep = join(REPO_ROOT, 'infra', 'main.bicep');

interface EntityQueue {
  Name: string;
  Properties: { LockDuration: string; MaxDeliveryCount: number; DefaultMessageTimeToLive: string };
}
const entityFile = JSON.parse(readFileSync(join(root, 'infra', 'servicebus.config.json'), 'utf8')) as {
  UserConfig: { Namespaces: { Queues: EntityQueue[] }[] };
};

function entityQueue(name: string): EntityQueue['Properties'] {
  const queue = entityFile.UserConfig.Namespaces[0]?.Queues.find((q) => q.Name === name);
  if (!queue) throw new Error(`entity file has no queue ${name}`);
  return queue.Properties;
}

const compiler = locateBicepCompiler();

describe.skipIf(!compiler || compiler.kind === 'az')('queue settings the app depends on (bicep snapshot)', () => {
  let settings: Record<string, unknown>;

  beforeAll(() => {
    const snapshot = snapshotMainBicep(compiler as BicepCompiler, mainBicep, {
      environmentName: 'ci',
      location: 'westeurope',
    });
    settings = single(snapshot, 'Microsoft.Web/sites/config').properties ?? {};
  }, 300_000);

  it('sets the orders delivery window (inbox TTL, retry budget) from the entity file', () => {
    const orders = entityQueue('orders');
    expect(settings).toMatchObject({
      ORDERS_LOCK_DURATION: orders.LockDuration,
      ORDERS_MAX_DELIVERY_COUNT: String(orders.MaxDeliveryCount),
      ORDERS_MESSAGE_TTL: orders.DefaultMessageTimeToLive,
    });
  });

  it('sets the ledger lock duration (the splitter renews before it) from the entity file', () => {
    expect(settings.LEDGER_LOCK_DURATION).toBe(entityQueue('ledger').LockDuration);
  });

  it('passes every value as a string, the only type an app setting holds', () => {
    for (const key of [
      'ORDERS_LOCK_DURATION',
      'ORDERS_MAX_DELIVERY_COUNT',
      'ORDERS_MESSAGE_TTL',
      'LEDGER_LOCK_DURATION',
    ]) {
      expect(typeof settings[key], key).toBe('string');
    }
  });
});
