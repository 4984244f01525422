import { describe, expect, it } from 'vitest';
import { entriesFor, makeHarness, uniqueOrderId } from './support/fixtures.js';

/**
 * Sequence 3 parked and impossible (it amends an unknown transaction). The message applying 2 commits; the drain's
 * rejection of 3 commits but its reply is lost; then every read fails until the retry budget runs out, so no
 * alert can be raised in that invocation.
 */
async function withRejectionUnalerted() {
  const h = makeHarness();
  const orderId = uniqueOrderId();
  const e = entriesFor(orderId);
  await h.send(e.created());
  await h.send(e.amended(3, 't-unknown', 5));
  h.store.injectFault({ on: 'commit', kind: 'outcomeUnknown', skip: 1 }); // apply of 2 fine, rejection of 3 lost
  h.store.injectFault({ on: 'read', kind: 'transient', skip: 2, times: 10_000 }); // after the record of 3 and the transaction it amends
  const first = await h.send(e.added(2, 't-2', 2));
  h.store.clearFaults();
  return { h, orderId, e, first };
}

describe('order processor, ParkedEntryRejected is at least once (rule 11)', () => {
  it('writes the rejection with its alert owed, so a lost reply and failing reads cannot lose the alert', async () => {
    // Act
    const { h, orderId, first } = await withRejectionUnalerted();
    // Assess
    expect(first.result.outcome).toBe('abandoned');
    expect(h.telemetry.alerts).toEqual([]);
    expect((await h.store.readOrder(orderId))?.doc.rejected).toMatchObject([{ sequence: 3, alerted: false }]);
  });

  it('raises the owed alert on the next message of the order, once', async () => {
    // Prepare
    const { h, orderId, e } = await withRejectionUnalerted();
    // Act
    const redelivered = await h.send(e.added(2, 't-2', 2));
    const later = await h.send(e.added(5, 't-5', 5));
    // Assess
    expect(redelivered.result.outcome).toBe('duplicate');
    expect(later.result.outcome).toBe('parked');
    expect(h.telemetry.alerts).toEqual([
      {
        name: 'ParkedEntryRejected',
        fields: expect.objectContaining({
          orderId,
          entryId: `${orderId}-e3`,
          sequence: 3,
          reason: 'InvalidTransition',
        }),
      },
    ]);
    expect((await h.store.readOrder(orderId))?.doc.rejected).toMatchObject([{ sequence: 3, alerted: true }]);
  });

  it('raises the owed alert from the gap timer when no message comes', async () => {
    // Prepare
    const { h, orderId } = await withRejectionUnalerted();
    // Act
    const report = await h.processor.drain(orderId);
    const again = await h.processor.drain(orderId);
    // Assess
    expect(report).toEqual({ orderId, drained: 0, rejected: 0, alerted: 1 });
    expect(again.alerted).toBe(0);
    expect(h.telemetry.alerts.map((a) => a.name)).toEqual(['ParkedEntryRejected']);
  });

  it('repeats an alert whose mark was lost rather than dropping it', async () => {
    // Prepare: the alert goes out but the commit that marks it keeps failing
    const { h, orderId } = await withRejectionUnalerted();
    h.store.injectFault({ on: 'commit', kind: 'transient', times: 10_000 });
    const unmarked = await h.processor.drain(orderId).catch((error: unknown) => error);
    h.store.clearFaults();
    // Act
    const report = await h.processor.drain(orderId);
    // Assess
    expect(unmarked).toMatchObject({ code: 'StoreTransient' });
    expect(report.alerted).toBe(1);
    expect(h.telemetry.alerts.map((a) => a.name)).toEqual(['ParkedEntryRejected', 'ParkedEntryRejected']);
    expect((await h.store.readOrder(orderId))?.doc.rejected[0]?.alerted).toBe(true);
  });

  it('marks owed alerts again after the order moved on, without raising them twice in one step', async () => {
    // Prepare: another instance moves the order on behind this cache while the alert is owed
    const { h, orderId, e } = await withRejectionUnalerted();
    await h.processor.drain(orderId, { cache: h.cache }); // the cache now holds the order
    const stale = h.cache.get(orderId)!;
    const owed = { ...stale.doc, rejected: stale.doc.rejected.map((r) => ({ ...r, alerted: false })) };
    h.store.put(owed); // owed again, under a new ETag
    h.cache.set(orderId, { doc: owed, etag: stale.etag });
    // Act
    const { result } = await h.send(e.added(2, 't-2', 2));
    // Assess
    expect(result.outcome).toBe('duplicate');
    expect(h.telemetry.alerts.map((a) => a.name)).toEqual(['ParkedEntryRejected', 'ParkedEntryRejected']);
    expect((await h.store.readOrder(orderId))?.doc.rejected[0]?.alerted).toBe(true);
  });
});
