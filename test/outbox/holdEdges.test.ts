import { describe, expect, it } from 'vitest';
import { heldCopy, newHold } from '../../src/core/outbox/holdMarker.js';
import { retryDueHolds } from '../../src/core/outbox/holdRetry.js';
import { WebhookWake, wakeWebhookHolds } from '../../src/core/outbox/holdWake.js';
import { HoldWriter } from '../../src/core/outbox/holdWriter.js';
import { InMemoryHoldStore, ManualClock, RecordingTelemetry } from '../support/fakes/index.js';
import { FakeSender, FakeWebhook, outboxRecordOf } from './support/relayFakes.js';

const BACKOFF = { firstMs: 60_000, maxMs: 3_600_000 };

describe('outbox holds at their edges', () => {
  it('gives a batch up when the marker keeps changing under the relay (the trigger retries it)', async () => {
    const holds = new InMemoryHoldStore();
    const clock = new ManualClock();
    holds.seed(
      newHold('a', heldCopy(outboxRecordOf('a', 1), ['webhook']), {
        nowMs: clock.now(),
        error: 'x',
        nextAttemptMs: clock.now(),
      }),
    );
    holds.append = async () => ({ kind: 'changed' });
    const writer = new HoldWriter({ holds, clock, backoff: BACKOFF });
    await expect(
      writer.hold('a', await writer.read('a'), [heldCopy(outboxRecordOf('a', 2), ['webhook'])]),
    ).rejects.toMatchObject({ code: 'OutboxBatchFailed' });
  });

  it('counts a release the store fails as an error of the tick, and goes on with the others', async () => {
    const holds = new InMemoryHoldStore();
    const clock = new ManualClock();
    for (const o of ['a', 'b'])
      holds.seed(
        newHold(o, heldCopy(outboxRecordOf(o, 1), ['webhook']), {
          nowMs: clock.now(),
          error: 'x',
          nextAttemptMs: clock.now(),
        }),
      );
    for (const o of ['a', 'b']) await holds.putHeld(heldCopy(outboxRecordOf(o, 1), ['webhook']));
    const heldRecords = holds.heldRecords.bind(holds);
    holds.heldRecords = async (orderId) => {
      if (orderId === 'a') throw Object.assign(new Error('Cosmos answered 503'), { code: 'StoreTransient' });
      return heldRecords(orderId);
    };
    const telemetry = new RecordingTelemetry();
    const report = await retryDueHolds({
      holds,
      sender: new FakeSender(),
      webhook: new FakeWebhook(),
      backoff: BACKOFF,
      clock,
      telemetry,
      wake: new WebhookWake(BACKOFF, clock),
      repeatAlertAfterMs: 86_400_000,
    });
    expect(report).toMatchObject({ holds: 2, tried: 2, released: 1, errors: 1 });
    expect(telemetry.logs.map((l) => l.message)).toContain('outbox hold release failed; the next tick retries it');
  });

  it('wakes only webhook holds that are not claimed and not due soon, leaving one changed meanwhile as it is', async () => {
    const holds = new InMemoryHoldStore();
    const clock = new ManualClock();
    const later = clock.now() + 3_600_000;
    const hold = (o: string, targets: ('order-events' | 'webhook')[], extra = {}) => ({
      ...newHold(o, heldCopy(outboxRecordOf(o, 1), targets), { nowMs: clock.now(), error: 'x', nextAttemptMs: later }),
      ...extra,
    });
    holds.seed(hold('due-later', ['webhook']));
    holds.seed(hold('events-only', ['order-events']));
    holds.seed(hold('claimed', ['webhook'], { releasingUntil: new Date(later).toISOString() }));
    holds.seed(hold('soon', ['webhook'], { nextAttempt: new Date(clock.now() + 1_000).toISOString() }));
    holds.seed(hold('raced', ['webhook']));
    const replace = holds.replace.bind(holds);
    holds.replace = async (marker, etag) => (marker.orderId === 'raced' ? 'changed' : replace(marker, etag));
    expect(await wakeWebhookHolds({ holds, clock, random: () => 0.5, spreadMs: 30_000 })).toBe(1);
    const woken = holds.all().find((h) => h.orderId === 'due-later')!;
    expect(woken.nextAttempt).toBe(new Date(clock.now() + 15_000).toISOString());
  });
});
