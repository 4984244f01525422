import { describe, expect, it } from 'vitest';
import { HOLD_CLAIM_MS, releaseHold, type HoldReleaseDeps } from '../../src/core/outbox/holdRelease.js';
import { discardHold } from '../../src/core/outbox/holdDiscard.js';
import { OutboxRelay } from '../../src/core/outbox/outboxRelay.js';
import { AlertName } from '../../src/core/ports/telemetry.js';
import { InMemoryHoldStore, ManualClock, RecordingTelemetry } from '../support/fakes/index.js';
import { FakeSender, FakeWebhook, asChange, outboxRecordOf, keyOf } from './support/relayFakes.js';

const changes = (...records: [string, number][]) => records.map(([o, s], i) => asChange(outboxRecordOf(o, s), i + 1));
const ids = (orderId: string, ...sequences: number[]) => sequences.map((s) => keyOf(orderId, s));
const BACKOFF = { firstMs: 60_000, maxMs: 3_600_000 };

/** A relay whose webhook failed order `a` from sequence 2: `a-2`, `a-3` are held for the webhook only. */
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
  webhook.failFor('a', Number.POSITIVE_INFINITY, 2);
  await relay.relay(changes(['a', 1], ['a', 2], ['a', 3], ['b', 1]));
  webhook.failures.clear();
  sender.sends.length = 0;
  webhook.posts.length = 0;
  const deps: HoldReleaseDeps = { holds, sender, webhook, backoff: BACKOFF, clock, random: () => 0.5 };
  return { relay, sender, webhook, holds, clock, deps };
}

describe('releasing a hold', () => {
  it('claims the marker, delivers the held records in order to the held target only, deletes each, then the marker', async () => {
    const { webhook, sender, holds, deps } = await heldStack();
    const report = await releaseHold(deps, 'a');
    expect(report).toMatchObject({ outcome: 'released', delivered: { 'order-events': 0, webhook: 2 }, rounds: 1 });
    expect(webhook.posts).toEqual(ids('a', 2, 3));
    expect(sender.sends).toEqual([]);
    expect(holds.all()).toEqual([]);
    expect(holds.heldOf('a').size).toBe(0);
  });

  it('loses nothing and keeps the order when the relay appends while the release runs', async () => {
    const { relay, webhook, holds, deps } = await heldStack();
    // The relay appends a-4 between the release's deliveries, and a-5 just before its marker delete.
    holds.beforeDeleteHeld = async (_orderId, id) => {
      if (id === 'outbox-held:a-2') await relay.relay(changes(['a', 4]));
    };
    let raced = false;
    holds.beforeDelete = async () => {
      if (raced) return;
      raced = true;
      await relay.relay(changes(['a', 5]));
    };
    const report = await releaseHold(deps, 'a');
    expect(report).toMatchObject({ outcome: 'released', rounds: 2 });
    expect(webhook.posts).toEqual(ids('a', 2, 3, 4, 5));
    expect(holds.all()).toEqual([]);

    // The hold is gone: the relay sends the order's next record itself, after everything held.
    await relay.relay(changes(['a', 6]));
    expect(webhook.posts).toEqual(ids('a', 2, 3, 4, 5, 6));
  });

  it('lets only one of two racing releases (the timer and an operator) deliver; the other finds it claimed', async () => {
    const { webhook, holds, deps, clock } = await heldStack();
    let operator: Promise<unknown> | undefined;
    holds.beforeDeleteHeld = async () => {
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
    await holds.replace(
      { ...stored.doc, releasingUntil: new Date(clock.now() + HOLD_CLAIM_MS).toISOString() },
      stored.etag,
    );
    expect(await releaseHold(deps, 'a')).toMatchObject({ outcome: 'busy' });
    clock.advance(HOLD_CLAIM_MS);
    expect(await releaseHold(deps, 'a')).toMatchObject({ outcome: 'released' });
  });

  it('leaves the hold in place when the webhook still fails, its next attempt backed off and the claim dropped', async () => {
    const { webhook, holds, deps, clock } = await heldStack();
    webhook.failFor('a');
    const report = await releaseHold(deps, 'a');
    // The second attempt: PT2M with half of it jitter (random 0.5 → 1.5 min).
    expect(report).toMatchObject({
      outcome: 'failed',
      detail: 'webhook: webhook answered HTTP 503',
      nextAttempt: new Date(clock.now() + 90_000).toISOString(),
    });
    expect(holds.all()[0]).toMatchObject({ attempts: 1, nextAttempt: report.nextAttempt, lastError: report.detail });
    expect(holds.all()[0]).not.toHaveProperty('releasingUntil');
    expect([...holds.heldOf('a').keys()]).toEqual(['outbox-held:a-2', 'outbox-held:a-3']);
  });

  it('keeps a record order-events took owing only the webhook when the webhook fails after it', async () => {
    const { sender, webhook, holds, deps } = await heldStack();
    sender.failFor('c', 'reject');
    const relay = new OutboxRelay({
      sender,
      webhook,
      holds,
      telemetry: new RecordingTelemetry(),
      clock: deps.clock,
      sleep: async () => undefined,
      options: { retryBudgetMs: 10 },
    });
    await relay.relay(changes(['c', 1], ['c', 2]));
    sender.failures.clear();
    webhook.failFor('c', Number.POSITIVE_INFINITY, 2);
    expect(await releaseHold(deps, 'c')).toMatchObject({
      outcome: 'failed',
      delivered: { 'order-events': 2, webhook: 1 },
    });
    expect([...holds.heldOf('c').values()].map((r) => [r.sequence, r.pendingTargets])).toEqual([[2, ['webhook']]]);
  });

  it('stops at half of its claim and leaves the hold due at once (the next release goes on)', async () => {
    const { webhook, holds, deps, clock } = await heldStack();
    holds.beforeDeleteHeld = async () => clock.advance(HOLD_CLAIM_MS);
    expect(await releaseHold(deps, 'a')).toMatchObject({ outcome: 'paused', delivered: { webhook: 1 } });
    expect(holds.all()[0]).toMatchObject({ attempts: 0, nextAttempt: new Date(clock.now()).toISOString() });
    holds.beforeDeleteHeld = undefined;
    expect(await releaseHold(deps, 'a')).toMatchObject({ outcome: 'released' });
    expect(webhook.posts).toEqual(ids('a', 2, 3));
  });

  it('says so when the order has no hold, and refuses webhook records without a webhook', async () => {
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
  it('writes an audit record in the order, drops the held records and the marker, and raises OutboxDiscarded', async () => {
    const { relay, holds, clock, webhook } = await heldStack();
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
        records: [
          expect.objectContaining({ sequence: 2, messageId: keyOf('a', 2), pendingTargets: ['webhook'] }),
          expect.objectContaining({ sequence: 3 }),
        ],
      }),
    ]);
    expect(holds.all()).toEqual([]);
    expect(holds.heldOf('a').size).toBe(0);
    expect(telemetry.alerts).toEqual([
      { name: AlertName.OutboxDiscarded, fields: expect.objectContaining({ orderId: 'a', records: 2, by: 'ops' }) },
    ]);
    // The relay sends the order's later records again.
    await relay.relay(changes(['a', 4]));
    expect(webhook.postedFor('a')).toEqual(ids('a', 1, 4));
  });

  it('refuses without a reason, and while a release holds the claim', async () => {
    const { holds, deps } = await heldStack();
    await expect(
      discardHold({ holds, telemetry: new RecordingTelemetry() }, 'a', { reason: ' ', by: 'ops' }),
    ).rejects.toThrow('reason');
    holds.beforeDeleteHeld = async () => {
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
