/**
 * Rule 5's timer: an idle session never looks at its order again, so the gap monitor finds the orders with parked
 * entries (or a `ParkedEntryRejected` alert still owed), raises `GapTooOld` once per gap older than `GAP_ALERT_AGE`
 * (again when its first missing sequence changes, or after `GAP_ALERT_REPEAT`), reports the parked gauges, and lets
 * the processor's drain finish what a session left (a parked entry already due, an owed alert). Every decision is
 * here; the store only reads and writes (`GapStore`).
 */
import { entryRecordId } from '../documents/documentIds.js';
import { EntryStatus, type GapAlertMark, type ParkedEntryRecord } from '../documents/entryRecord.js';
import type { OrderDocument } from '../documents/orderDocument.js';
import { errorCode } from '../errors.js';
import { systemClock, type Clock } from '../ports/clock.js';
import type { GapStore, Stored } from '../ports/orderStore.js';
import { AlertName, type Telemetry } from '../ports/telemetry.js';
import { dueOn } from './followUpCheck.js';
import { errorMessage } from '../errorMessage.js';

/** A gap that has been open too long (`GapTooOld`). @internal */
export interface StaleGap {
  orderId: string;
  /** The missing sequence the order waits for. */
  waitingFor: number;
  /** The oldest parked entry behind the gap. */
  entryId: string;
  sequence: number;
  ageMs: number;
  /** Parked entries behind the gap. */
  parked: number;
}

/**
 * For the gap timer (an idle session never looks again): the order's gap if its oldest parked entry is older
 * than `gapAlertAgeMs`. Parked entries are never dropped; this only reports.
 * @internal
 */
export function staleGap(doc: OrderDocument, at: { nowMs: number; gapAlertAgeMs: number }): StaleGap | undefined {
  const { nowMs, gapAlertAgeMs } = at;
  let oldest: OrderDocument['parked'][number] | undefined;
  for (const p of doc.parked) if (!oldest || p.parkedAt < oldest.parkedAt) oldest = p;
  if (!oldest) return undefined;
  const ageMs = nowMs - Date.parse(oldest.parkedAt);
  if (ageMs < gapAlertAgeMs) return undefined;
  return {
    orderId: doc.orderId,
    waitingFor: doc.lastSequence + 1,
    entryId: oldest.entryId,
    sequence: oldest.sequence,
    ageMs,
    parked: doc.parked.length,
  };
}

/**
 * Whether the stale `gap` raises `GapTooOld` now, and the mark that records it; `undefined` to stay quiet. Rule 5:
 * once per gap, again only when its first missing sequence changes (the gap partly filled) or `gapAlertRepeatMs`
 * after the last alert. `oldest` is the gap's oldest parked entry (`gap.sequence`) as stored, which keeps the last
 * mark (see `ParkedEntryRecord.gapAlert`); without it (drained since the order was read) the next scan decides.
 * @internal
 */
export function gapAlertDue(
  gap: StaleGap,
  oldest: ParkedEntryRecord | undefined,
  at: { nowMs: number; gapAlertRepeatMs: number },
): GapAlertMark | undefined {
  if (oldest?.sequence !== gap.sequence) return undefined;
  const last = oldest.gapAlert;
  // An unreadable time counts as no alert: better one alert too many than a gap never reported again.
  const quiet =
    last !== undefined &&
    last.missingSequence === gap.waitingFor &&
    at.nowMs - Date.parse(last.alertedAt) < at.gapAlertRepeatMs;
  return quiet ? undefined : { alertedAt: new Date(at.nowMs).toISOString(), missingSequence: gap.waitingFor };
}

/** The parked gauges one scan reports. */
export type GapGauges = Pick<GapMonitorReport, 'parkedEntries' | 'oldestGapAgeMs'>;

/** What {@link runGapMonitor} needs. */
export interface GapMonitorDeps {
  store: GapStore;
  telemetry: Telemetry;
  /** Age of a gap that raises `GapTooOld` (`CoreConfig.gapAlertAgeMs`). */
  gapAlertAgeMs: number;
  /** Quiet time of a gap after its alert (`CoreConfig.gapAlertRepeatMs`). */
  gapAlertRepeatMs: number;
  /** The processor's consumer name (`CoreConfig.consumerName`), in the ids of the entries' records. */
  consumerName: string;
  /** Receives the parked gauges. @default none */
  metrics?: { gaps(gauges: GapGauges): void };
  /** @default systemClock */
  clock?: Clock;
  /** The processor's drain, for orders with something due (`dueOn`). @default none */
  drain?: (orderId: string) => Promise<{ drained: number }>;
}

/** What one scan found and did. */
export interface GapMonitorReport {
  /** Orders with parked entries. */
  orders: number;
  parkedEntries: number;
  oldestGapAgeMs: number;
  /** Gaps older than `GAP_ALERT_AGE`. */
  stale: StaleGap[];
  /** The stale gaps that raised `GapTooOld` in this scan. */
  alerted: StaleGap[];
  /** Orders drained, with the entries each applied. */
  drained: { orderId: string; drained: number }[];
}

/**
 * One scan. Rejects only if the orders cannot be read; a failing drain (of an order with something due) is logged and
 * retried next time.
 */
export async function runGapMonitor(deps: GapMonitorDeps): Promise<GapMonitorReport> {
  const nowMs = (deps.clock ?? systemClock).now();
  const docs = await deps.store.ordersWaiting();
  const report: GapMonitorReport = {
    orders: docs.length,
    parkedEntries: 0,
    oldestGapAgeMs: 0,
    stale: [],
    alerted: [],
    drained: [],
  };
  for (const doc of docs) {
    report.parkedEntries += doc.parked.length;
    for (const p of doc.parked) report.oldestGapAgeMs = Math.max(report.oldestGapAgeMs, nowMs - Date.parse(p.parkedAt));
    const gap = staleGap(doc, { nowMs, gapAlertAgeMs: deps.gapAlertAgeMs });
    if (gap) {
      report.stale.push(gap);
      if (await alertOnce(deps, gap, nowMs)) report.alerted.push(gap);
    }
    if (deps.drain && dueOn(doc)) {
      try {
        report.drained.push({ orderId: doc.orderId, drained: (await deps.drain(doc.orderId)).drained });
      } catch (error) {
        const fields = { orderId: doc.orderId, code: errorCode(error), description: errorMessage(error) };
        deps.telemetry.log('warn', 'gap monitor drain failed', fields);
      }
    }
  }
  deps.metrics?.gaps({ parkedEntries: report.parkedEntries, oldestGapAgeMs: report.oldestGapAgeMs });
  return report;
}

/**
 * Raises `GapTooOld` for a stale gap if {@link gapAlertDue} says so, recording it first on the gap's oldest parked
 * entry under its ETag, so that another instance's scan, or this one after a restart, stays quiet. A lost race
 * (another scan marked it, a drain ended the gap) raises nothing: the next scan decides. A failed write still raises
 * it: the decision stands and, if the mark did not land, the next scan repeats the alert rather than dropping it.
 */
async function alertOnce(deps: GapMonitorDeps, gap: StaleGap, nowMs: number): Promise<boolean> {
  let oldest: Stored<ParkedEntryRecord> | undefined;
  try {
    const read = await deps.store.readEntry(gap.orderId, entryRecordId(deps.consumerName, gap.entryId));
    oldest = read?.doc.status === EntryStatus.Parked ? { doc: read.doc, etag: read.etag } : undefined;
  } catch (error) {
    deps.telemetry.log('warn', 'gap monitor could not read a parked entry', {
      orderId: gap.orderId,
      sequence: gap.sequence,
      code: errorCode(error),
    });
    return false;
  }
  const mark = gapAlertDue(gap, oldest?.doc, { nowMs, gapAlertRepeatMs: deps.gapAlertRepeatMs });
  if (!oldest || !mark) return false;
  try {
    if ((await deps.store.markGapAlert(oldest, mark)) === 'changed') return false;
  } catch (error) {
    deps.telemetry.log('warn', 'gap monitor could not record a GapTooOld alert; the next scan repeats it', {
      orderId: gap.orderId,
      code: errorCode(error),
    });
  }
  deps.telemetry.alert(AlertName.GapTooOld, {
    orderId: gap.orderId,
    entryId: gap.entryId,
    sequence: gap.sequence,
    missingSequence: gap.waitingFor,
    ageMs: gap.ageMs,
    parked: gap.parked,
  });
  return true;
}
