import { describe, expect, it } from 'vitest';
import { runGapMonitor } from '../../src/core/index.js';
import { gapAlertDue, type GapMonitorDeps, type StaleGap } from '../../src/core/order/gapMonitor.js';
import type { GapStore } from '../../src/core/ports/orderStore.js';
import type { OrderDocument } from '../../src/core/documents/orderDocument.js';
import type { ParkedEntryRecord } from '../../src/core/documents/entryRecord.js';
import { RecordingTelemetry } from '../support/fakes/index.js';
import { entriesFor, makeHarness, uniqueOrderId } from './support/fixtures.js';

const minutes = (n: number) => n * 60_000;
const AGE = minutes(15);
const REPEAT = minutes(60);

describe('gapAlertDue (rule 5: GapTooOld once per gap)', () => {
  const t0 = Date.parse('2025-01-01T00:00:00.000Z');
  const gap: StaleGap = { orderId: 'o-1', waitingFor: 2, entryId: 'e-5', sequence: 5, ageMs: AGE, parked: 1 };
  const oldest = (gapAlert?: ParkedEntryRecord['gapAlert']): ParkedEntryRecord => ({
    id: 'entry:order-processor:e-5',
    docType: 'entry',
    status: 'parked',
    orderId: 'o-1',
    sequence: 5,
    entryId: 'e-5',
    requestHash: 'h',
    entry: { entryId: 'e-5', orderId: 'o-1', sequence: 5, type: 'OrderDeleted', data: {} },
    correlationId: undefined,
    parkedAt: new Date(t0).toISOString(),
    ...(gapAlert && { gapAlert }),
  });
  const alertedAt = (ms: number, missingSequence = 2) => ({ alertedAt: new Date(ms).toISOString(), missingSequence });
  const at = (ms: number) => ({ nowMs: ms, gapAlertRepeatMs: REPEAT });

  it.each([
    ['never alerted', oldest(), t0, true],
    ['alerted a minute ago for the same missing sequence', oldest(alertedAt(t0 - minutes(1))), t0, false],
    ['alerted just under GAP_ALERT_REPEAT ago', oldest(alertedAt(t0 - REPEAT + 1)), t0, false],
    ['alerted GAP_ALERT_REPEAT ago', oldest(alertedAt(t0 - REPEAT)), t0, true],
    ['alerted a minute ago for another missing sequence', oldest(alertedAt(t0 - minutes(1), 1)), t0, true],
    ['marked with an unreadable time', oldest({ alertedAt: 'yesterday', missingSequence: 2 }), t0, true],
  ])('%s: due = %s', (_name, doc, nowMs, due) => {
    // Act
    const mark = gapAlertDue(gap, doc, at(nowMs));
    // Assess
    expect(mark).toEqual(due ? { alertedAt: new Date(nowMs).toISOString(), missingSequence: 2 } : undefined);
  });

  it('stays quiet when the oldest parked entry is gone (drained since the order was read) or is another one', () => {
    // Act + Assess
    expect(gapAlertDue(gap, undefined, at(t0))).toBeUndefined();
    expect(gapAlertDue({ ...gap, sequence: 6 }, oldest(), at(t0))).toBeUndefined();
  });
});

describe('gap monitor, one GapTooOld per gap (rule 5)', () => {
  /** An order waiting for 2, with 5 parked first and 3 parked a minute later, so 5 is the oldest parked entry. */
  async function gappedOrder() {
    const h = makeHarness();
    const orderId = uniqueOrderId();
    const e = entriesFor(orderId);
    await h.send(e.created());
    await h.send(e.added(5, 't-5', 5));
    h.clock.advance(minutes(1));
    await h.send(e.added(3, 't-3', 3));
    const t0 = h.clock.now() - minutes(1);
    /** One scan at `t0 + minute` minutes, as a fresh monitor would run it (nothing kept between scans). */
    const scanAt = async (minute: number, overrides: Partial<GapMonitorDeps> = {}) => {
      h.clock.advance(t0 + minutes(minute) - h.clock.now());
      const telemetry = new RecordingTelemetry();
      const report = await runGapMonitor({
        store: {
          // As the monitor's query sees the order; no store call, so an injected fault hits the monitor's own reads.
          ordersWaiting: async () => [h.store.documents(orderId).get('order') as OrderDocument],
          readEntry: (o, id) => h.store.readEntry(o, id),
          markGapAlert: (parked, mark) => h.store.markGapAlert(parked, mark),
        },
        telemetry,
        gapAlertAgeMs: AGE,
        gapAlertRepeatMs: REPEAT,
        consumerName: 'order-processor',
        clock: h.clock,
        ...overrides,
      });
      return { report, telemetry, alerts: telemetry.alerts.map((a) => a.fields) };
    };
    const markOf = (sequence: number) =>
      (h.store.documents(orderId).get(`entry:order-processor:${orderId}-e${sequence}`) as ParkedEntryRecord | undefined)
        ?.gapAlert;
    return { h, orderId, e, t0, scanAt, markOf };
  }

  it('raises GapTooOld once, keeps its time on the oldest parked entry, and stays quiet a minute later and on a restart', async () => {
    // Prepare
    const { orderId, t0, scanAt, markOf } = await gappedOrder();
    // Act
    const young = await scanAt(14);
    const first = await scanAt(15);
    const minuteLater = await scanAt(16);
    const restarted = await scanAt(16);
    // Assess
    expect(young.report.stale).toEqual([]);
    expect(first.alerts).toEqual([
      { orderId, entryId: `${orderId}-e5`, sequence: 5, missingSequence: 2, ageMs: AGE, parked: 2 },
    ]);
    expect(markOf(5)).toEqual({ alertedAt: new Date(t0 + minutes(15)).toISOString(), missingSequence: 2 });
    expect(markOf(3)).toBeUndefined();
    expect(minuteLater.report.stale).toHaveLength(1);
    expect(minuteLater.alerts).toEqual([]);
    expect(restarted.alerts).toEqual([]);
  });

  it('raises it again after GAP_ALERT_REPEAT', async () => {
    // Prepare
    const { scanAt, markOf, t0 } = await gappedOrder();
    await scanAt(15);
    // Act
    const before = await scanAt(15 + 59);
    const after = await scanAt(15 + 60);
    const next = await scanAt(15 + 61);
    // Assess
    expect(before.alerts).toEqual([]);
    expect(after.alerts).toMatchObject([{ sequence: 5, missingSequence: 2, ageMs: minutes(75) }]);
    expect(markOf(5)).toEqual({ alertedAt: new Date(t0 + minutes(75)).toISOString(), missingSequence: 2 });
    expect(next.alerts).toEqual([]);
  });

  it('raises it again at once when the gap partly fills and its first missing sequence changes', async () => {
    // Prepare
    const { h, e, scanAt } = await gappedOrder();
    await scanAt(16);
    h.clock.advance(minutes(1));
    const filled = await h.send(e.added(2, 't-2', 2)); // applies 2, drains 3; the order now waits for 4
    // Act
    const moved = await scanAt(17);
    const quiet = await scanAt(18);
    // Assess
    expect(filled.result).toMatchObject({ outcome: 'applied', drained: 1 });
    expect(moved.alerts).toMatchObject([{ sequence: 5, missingSequence: 4, parked: 1 }]);
    expect(quiet.alerts).toEqual([]);
  });

  it('alerts once when two instances decide at the same time: the second write fails its ETag and stays quiet', async () => {
    // Prepare: instance B reads the parked entry, then instance A scans to the end before B writes
    const { h, scanAt } = await gappedOrder();
    let a: ReturnType<typeof scanAt> | undefined;
    const slowStore: GapStore = {
      ordersWaiting: () => h.store.ordersWaiting(),
      readEntry: (orderId, id) => h.store.readEntry(orderId, id),
      markGapAlert: async (parked, mark) => {
        a = scanAt(15);
        await a;
        return h.store.markGapAlert(parked, mark);
      },
    };
    // Act
    const b = await scanAt(15, { store: slowStore });
    // Assess
    expect((await a!).alerts).toHaveLength(1);
    expect(b.alerts).toEqual([]);
    expect(b.report.stale).toHaveLength(1);
    expect((await scanAt(16)).alerts).toEqual([]);
  });

  it('does not drop the decision when the mark cannot be written: it alerts, and the next scan repeats it until a mark holds', async () => {
    // Prepare
    const { h, scanAt, markOf } = await gappedOrder();
    h.store.injectFault({ on: 'commit', kind: 'transient' });
    // Act
    const failed = await scanAt(15);
    const unmarked = markOf(5);
    const retried = await scanAt(16);
    const quiet = await scanAt(17);
    // Assess
    expect(failed.alerts).toHaveLength(1);
    expect(failed.telemetry.logs).toContainEqual(
      expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ code: 'StoreTransient' }) }),
    );
    expect(unmarked).toBeUndefined();
    expect(retried.alerts).toHaveLength(1);
    expect(markOf(5)).toMatchObject({ missingSequence: 2 });
    expect(quiet.alerts).toEqual([]);
  });

  it('decides again on the next scan when the parked entry cannot be read', async () => {
    // Prepare
    const { h, scanAt } = await gappedOrder();
    h.store.injectFault({ on: 'read', kind: 'transient' });
    // Act
    const failed = await scanAt(15);
    const retried = await scanAt(16);
    // Assess
    expect(failed.alerts).toEqual([]);
    expect(retried.alerts).toHaveLength(1);
  });
});
