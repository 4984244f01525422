import { describe, expect, it } from 'vitest';
import { HOLD_CLAIM_MS, releaseHold, type HoldReleaseDeps } from '../../src/core/outbox/holdRelease.js';
import { discardHold } from '../../src/core/outbox/holdDiscard.js';
import { OutboxRelay } from '../../src/core/outbox/outboxRelay.js';
import { AlertName } from '../../src/core/ports/telemetry.js';
import { InMemoryHoldStore, ManualClock, RecordingTelemetry } from '../support/fakes/index.js';
import { FakeSender, FakeWebhook, asChange, outboxRecordOf, keyOf } from './support/relayFakes.js';

const ids = (orderId: string, ...sequences: number[]) => sequences.map((s) => keyOf(orderId, s));
const BACKOFF = { firstMs: 60_000, maxMs: 300_000 };

/** A relay whose webhook failed order `a` from sequence 2: `a-2`, `a-3` wait behind a hold for the webhook only. */
async function heldStack() {
  const clock = new ManualClock();
  const sender = new FakeSender();
  const webhook = new FakeWebhook();
  const holds = new InMemoryHoldStore();
  const relay = new OutboxRelay({
    sender,
    webhook,
    holds,
    telemetry: new RecordingTelemetry(),
    clock,
    sleep: clock.sleep,
    options: { retryBudgetMs: 1000 },
  });
  /** The processor commits the entries, then the change feed hands their stored events to the relay. */
  const relayed = (...records: [string, number][]) => {
    const stored = records.map(([o, s]) => outboxRecordOf(o, s));
    holds.commit(...stored);
    return relay.relay(stored.map((r, i) => asChange(r, i + 1)));
  };
  webhook.failFor('a', Number.POSITIVE_INFINITY, 2);
  await relayed(['a', 1], ['a', 2], ['a', 3], ['b', 1]);
  webhook.failures.clear();
  sender.sends.length = 0;
  webhook.posts.length = 0;
  const deps: HoldReleaseDeps = { holds, sender, webhook, backoff: BACKOFF, clock, random: () => 0.5 };
  return { relayed, sender, webhook, holds, clock, deps };
}

describe('releasing a hold', () => {
  it('claims the marker, reads the stored events above its cursor, delivers them in order to the held target only, then ends it', async () => {
    const { webhook, sender, holds, deps } = await heldStack();
    const report = await releaseHold(deps, 'a');
    expect(report).toMatchObject({ outcome: 'released', delivered: { 'order-events': 0, webhook: 2 }, rounds: 1 });
    expect(webhook.posts).toEqual(ids('a', 2, 3));
    expect(sender.sends).toEqual([]);
    expect(holds.all()).toEqual([]);
    // One claim, one query of the stored events, one end: the cost of a release, whatever it holds up to a page.
    expect(holds.requests).toMatchObject({ storedEvents: 1, end: 1 });
  });

  it('loses nothing and keeps the order when the relay raises the hold while the release runs', async () => {
    const { relayed, webhook, holds, deps } = await heldStack();
    // The relay puts a-4 behind the hold between the release's deliveries, and a-5 just before the release ends it.
    webhook.afterPost = async (event) => {
      if (event.messageId === keyOf('a', 2)) await relayed(['a', 4]);
    };
    let raced = false;
    holds.beforeEnd = async () => {
      if (raced) return;
      raced = true;
      await relayed(['a', 5]);
    };
    const report = await releaseHold(deps, 'a');
    expect(report).toMatchObject({ outcome: 'released', rounds: 2 });
    expect(webhook.posts).toEqual(ids('a', 2, 3, 4, 5));
    expect(holds.all()).toEqual([]);

    // The hold is gone: the relay sends the order's next record itself, after everything held.
    await relayed(['a', 6]);
    expect(webhook.posts).toEqual(ids('a', 2, 3, 4, 5, 6));
  });

  it('keeps the cursor a release reached when a relay that read the hold earlier raises it', async () => {
    const { relayed, webhook, holds, deps } = await heldStack();
    // Another instance puts a-4, a-5 behind the hold; the release gets a-2 to a-4 to the webhook and fails at a-5.
    const other = new OutboxRelay({
      sender: new FakeSender(),
      webhook,
      holds,
      telemetry: new RecordingTelemetry(),
      options: { retryBudgetMs: 1 },
    });
    holds.commit(outboxRecordOf('a', 4), outboxRecordOf('a', 5));
    await other.relay([asChange(outboxRecordOf('a', 4)), asChange(outboxRecordOf('a', 5))]);
    webhook.failFor('a', Number.POSITIVE_INFINITY, 5);
    expect(await releaseHold(deps, 'a')).toMatchObject({ outcome: 'failed', delivered: { webhook: 3 } });
    // This relay still knows the hold through a-3; its batch a-4 to a-6 joins it.
    await relayed(['a', 4], ['a', 5], ['a', 6]);
    expect(holds.all()[0]).toMatchObject({ deliveredThrough: { webhook: 4 }, heldThrough: 6 });
    webhook.failures.clear();
    await releaseHold(deps, 'a');
    expect(webhook.posts).toEqual(ids('a', 2, 3, 4, 5, 6));
  });

  it('delivers a long hold page by page, in order', async () => {
    const { relayed, webhook, deps } = await heldStack();
    for (let s = 4; s <= 250; s += 1) await relayed(['a', s]);
    expect(await releaseHold(deps, 'a')).toMatchObject({ outcome: 'released', delivered: { webhook: 249 } });
    expect(webhook.posts).toEqual(ids('a', ...Array.from({ length: 249 }, (_, i) => i + 2)));
  });

  it('lets only one of two racing releases (the timer and an operator) deliver; the other finds it claimed', async () => {
    const { webhook, deps, clock } = await heldStack();
    let operator: Promise<unknown> | undefined;
    webhook.afterPost = async () => {
      operator ??= releaseHold(deps, 'a');
    };
    const timer = await releaseHold(deps, 'a');
    expect(timer).toMatchObject({ outcome: 'released' });
    expect(await operator).toMatchObject({
      outcome: 'busy',
      detail: `being released until ${new Date(clock.now() + HOLD_CLAIM_MS).toISOString()}`,
    });
    expect(webhook.posts).toEqual(ids('a', 2, 3));
  });

  it('lets one of two releases that read the marker at once claim it: the other loses the ETag and backs off', async () => {
    const { webhook, holds, deps } = await heldStack();
    const [first, second] = await Promise.all([releaseHold(deps, 'a'), releaseHold(deps, 'a')]);
    expect([first.outcome, second.outcome].sort()).toEqual(['busy', 'released']);
    expect(webhook.posts).toEqual(ids('a', 2, 3));
    expect(holds.all()).toEqual([]);
  });

  it('takes over a claim that ran out (a release that died)', async () => {
    const { holds, deps, clock } = await heldStack();
    const stored = (await holds.read('a'))!;
    await holds.write(
      { ...stored.doc, releasingUntil: new Date(clock.now() + HOLD_CLAIM_MS).toISOString() },
      stored.etag,
    );
    expect(await releaseHold(deps, 'a')).toMatchObject({ outcome: 'busy' });
    clock.advance(HOLD_CLAIM_MS);
    expect(await releaseHold(deps, 'a')).toMatchObject({ outcome: 'released' });
  });

  it('hands the hold back when the webhook fails: the cursor where it stopped, the next attempt backed off, the claim dropped', async () => {
    const { webhook, holds, deps, clock } = await heldStack();
    webhook.failFor('a', Number.POSITIVE_INFINITY, 3);
    const report = await releaseHold(deps, 'a');
    // The second attempt: PT2M with half of it jitter (random 0.5 → 1.5 min).
    expect(report).toMatchObject({
      outcome: 'failed',
      detail: 'webhook: webhook answered HTTP 503',
      nextAttempt: new Date(clock.now() + 90_000).toISOString(),
    });
    const [hold] = holds.all();
    expect(hold).toMatchObject({
      attempts: 1,
      nextAttempt: report.nextAttempt,
      lastError: report.detail,
      deliveredThrough: { webhook: 2 },
      heldThrough: 3,
    });
    expect(hold).not.toHaveProperty('releasingUntil');
    webhook.failures.clear();
    expect(await releaseHold(deps, 'a')).toMatchObject({ outcome: 'released', delivered: { webhook: 1 } });
    expect(webhook.posts).toEqual(ids('a', 2, 3));
  });

  it('backs off no further than OUTBOX_HOLD_RETRY_MAX, however many releases failed', async () => {
    const { webhook, deps, clock } = await heldStack();
    webhook.failFor('a');
    let report = await releaseHold(deps, 'a');
    for (let i = 0; i < 12; i++) report = await releaseHold({ ...deps, random: () => 0.999 }, 'a');
    expect(Date.parse(report.nextAttempt!) - clock.now()).toBeLessThanOrEqual(BACKOFF.maxMs);
  });

  it('keeps what order-events took when the webhook then fails: each target its own cursor', async () => {
    const { relayed, sender, webhook, holds, deps } = await heldStack();
    sender.failFor('c', 'reject');
    await relayed(['c', 1], ['c', 2]);
    expect(holds.all().find((h) => h.orderId === 'c')).toMatchObject({
      targets: ['order-events', 'webhook'],
      deliveredThrough: { 'order-events': 0, webhook: 0 },
    });
    sender.failures.clear();
    webhook.failFor('c', Number.POSITIVE_INFINITY, 2);
    expect(await releaseHold(deps, 'c')).toMatchObject({
      outcome: 'failed',
      delivered: { 'order-events': 2, webhook: 1 },
    });
    expect(holds.all().find((h) => h.orderId === 'c')!.deliveredThrough).toEqual({ 'order-events': 2, webhook: 1 });
    webhook.failures.clear();
    expect(await releaseHold(deps, 'c')).toMatchObject({ delivered: { 'order-events': 0, webhook: 1 } });
    expect(sender.sentFor('c')).toEqual(ids('c', 1, 2));
  });

  it('stops at half of its claim and leaves the hold due at once, its cursor kept (the next release goes on)', async () => {
    const { webhook, holds, deps, clock } = await heldStack();
    webhook.afterPost = async () => clock.advance(HOLD_CLAIM_MS);
    expect(await releaseHold(deps, 'a')).toMatchObject({ outcome: 'paused', delivered: { webhook: 1 } });
    expect(holds.all()[0]).toMatchObject({
      attempts: 0,
      nextAttempt: new Date(clock.now()).toISOString(),
      deliveredThrough: { webhook: 2 },
    });
    webhook.afterPost = undefined;
    expect(await releaseHold(deps, 'a')).toMatchObject({ outcome: 'released' });
    expect(webhook.posts).toEqual(ids('a', 2, 3));
  });

  it('says so when the order has no hold, and refuses a webhook hold without a webhook', async () => {
    const { holds, sender, deps } = await heldStack();
    expect(await releaseHold(deps, 'b')).toMatchObject({ outcome: 'no-hold', rounds: 0 });
    expect(await releaseHold({ ...deps, webhook: undefined, sender }, 'a')).toMatchObject({
      outcome: 'failed',
      detail: expect.stringContaining('OUTBOX_WEBHOOK_URL is not set'),
    });
    expect(holds.all()).toHaveLength(1);
  });
});

describe('discarding a hold', () => {
  it('writes an audit record of the undelivered range in the order, ends the hold and raises OutboxDiscarded', async () => {
    const { relayed, holds, clock, webhook } = await heldStack();
    const telemetry = new RecordingTelemetry();
    const report = await discardHold({ holds, telemetry, clock }, 'a', {
      reason: 'the receiver replayed them from its own log',
      by: 'ops',
    });
    expect(report).toMatchObject({ outcome: 'discarded', records: 2 });
    expect(holds.discards).toEqual([
      expect.objectContaining({
        docType: 'outbox-discard',
        orderId: 'a',
        reason: 'the receiver replayed them from its own log',
        by: 'ops',
        undelivered: [{ target: 'webhook', after: 1, through: 3 }],
      }),
    ]);
    expect(holds.all()).toEqual([]);
    expect(telemetry.alerts).toEqual([
      {
        name: AlertName.OutboxDiscarded,
        fields: expect.objectContaining({ orderId: 'a', sequence: 2, records: 2, by: 'ops' }),
      },
    ]);
    // The relay sends the order's later records again.
    await relayed(['a', 4]);
    expect(webhook.postedFor('a')).toEqual(ids('a', 1, 4));
  });

  it('audits what the relay added while it ran, under a second record', async () => {
    const { relayed, holds, clock } = await heldStack();
    let raced = false;
    holds.beforeEnd = async () => {
      if (raced) return;
      raced = true;
      await relayed(['a', 4]);
    };
    const report = await discardHold({ holds, telemetry: new RecordingTelemetry(), clock }, 'a', {
      reason: 'x',
      by: 'ops',
    });
    expect(report).toMatchObject({ outcome: 'discarded', records: 3 });
    expect(holds.discards.map((d) => d.undelivered)).toEqual([
      [{ target: 'webhook', after: 1, through: 3 }],
      [{ target: 'webhook', after: 3, through: 4 }],
    ]);
  });

  it('refuses without a reason, and while a release holds the claim', async () => {
    const { holds, webhook, deps } = await heldStack();
    await expect(
      discardHold({ holds, telemetry: new RecordingTelemetry() }, 'a', { reason: ' ', by: 'ops' }),
    ).rejects.toThrow('reason');
    webhook.afterPost = async () => {
      expect(
        await discardHold({ holds, telemetry: new RecordingTelemetry(), clock: deps.clock }, 'a', {
          reason: 'x',
          by: 'ops',
        }),
      ).toMatchObject({ outcome: 'busy' });
    };
    expect(await releaseHold(deps, 'a')).toMatchObject({ outcome: 'released' });
    expect(holds.discards).toEqual([]);
  });
});
