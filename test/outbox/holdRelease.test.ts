import { describe, expect, it } from 'vitest';
import { releaseHold } from '../../src/core/outbox/holdRelease.js';
import { OutboxRelay } from '../../src/core/outbox/outboxRelay.js';
import { InMemoryHoldStore, ManualClock, RecordingTelemetry } from '../../src/core/testing/index.js';
import { FakeSender, FakeWebhook, asChange, outboxRecordOf } from './support/relayFakes.js';

const changes = (...records: [string, number][]) => records.map(([o, s], i) => asChange(outboxRecordOf(o, s), i + 1));
const ids = (orderId: string, ...sequences: number[]) => sequences.map((s) => `outbox:${orderId}-${s}`);

/** A relay whose webhook failed order `a` from sequence 2: `a-2`, `a-3` are held for the webhook only. */
async function heldStack() {
  const clock = new ManualClock();
  const sender = new FakeSender();
  const webhook = new FakeWebhook();
  const holds = new InMemoryHoldStore();
  const relay = new OutboxRelay({ sender, webhook, holds, telemetry: new RecordingTelemetry(), clock, sleep: clock.sleep, options: { retryBudgetMs: 1000 } });
  webhook.failFor('a', Number.POSITIVE_INFINITY, 2);
  await relay.relay(changes(['a', 1], ['a', 2], ['a', 3], ['b', 1]));
  webhook.failures.clear();
  sender.sends.length = 0;
  webhook.posts.length = 0;
  return { relay, sender, webhook, holds };
}

describe('releasing a hold', () => {
  it('delivers the held records in order to the failed target only, then deletes the hold', async () => {
    const { sender, webhook, holds } = await heldStack();
    const report = await releaseHold({ holds, sender, webhook }, 'a');
    expect(report).toMatchObject({ released: true, delivered: { 'order-events': 0, webhook: 2 }, rounds: 1 });
    expect(webhook.posts).toEqual(ids('a', 2, 3));
    expect(sender.sends).toEqual([]);
    expect(holds.all()).toEqual([]);
  });

  it('delivers what the relay appended meanwhile and deletes again when the ETag changed', async () => {
    const { relay, sender, webhook, holds } = await heldStack();
    let raced = false;
    holds.beforeDelete = async () => {
      if (raced) return;
      raced = true;
      await relay.relay(changes(['a', 4]));
    };
    const report = await releaseHold({ holds, sender, webhook }, 'a');
    expect(report).toMatchObject({ released: true, rounds: 2 });
    expect(webhook.posts).toEqual(ids('a', 2, 3, 4));
    expect(sender.sends).toEqual([ids('a', 4)]);
    expect(holds.all()).toEqual([]);

    // The hold is gone: the relay sends the order's next record itself, after everything held.
    await relay.relay(changes(['a', 5]));
    expect(webhook.posts).toEqual(ids('a', 2, 3, 4, 5));
  });

  it('leaves the hold in place when a target still fails', async () => {
    const { sender, webhook, holds } = await heldStack();
    webhook.failFor('a');
    await expect(releaseHold({ holds, sender, webhook }, 'a')).rejects.toThrow('HTTP 503');
    expect(holds.all()[0]!.records.map((r) => r.id)).toEqual(ids('a', 2, 3));
  });

  it('says so when the order has no hold', async () => {
    const { sender, webhook, holds } = await heldStack();
    expect(await releaseHold({ holds, sender, webhook }, 'b')).toMatchObject({ released: false, rounds: 0 });
  });

  it('refuses to release records owed to the webhook without one configured', async () => {
    const { sender, holds } = await heldStack();
    await expect(releaseHold({ holds, sender }, 'a')).rejects.toThrow('OUTBOX_WEBHOOK_URL is not set');
    expect(holds.all()).toHaveLength(1);
  });
});
