/**
 * The gap monitor's scan (design rule 5): an idle session never looks at its order again, so a timer finds the
 * orders with parked entries (or a `ParkedEntryRejected` alert still owed), raises `GapTooOld` once per gap older
 * than `GAP_ALERT_AGE` (again when its first missing sequence changes or after `GAP_ALERT_REPEAT`), reports the
 * parked gauges, and lets the processor's drain finish what a session left (a parked entry already due, an owed
 * alert).
 */
import type { Container } from '@azure/cosmos';
import { parkedEntryId } from '../core/documents/documentIds.js';
import type { OrderDocument } from '../core/documents/orderDocument.js';
import { orderNeedsFollowUp } from '../core/order/followUpCheck.js';
import { gapAlertDue, staleGap, type StaleGap } from '../core/order/gapCheck.js';
import { CORE_DEFAULTS } from '../core/config.js';
import { systemClock, type Clock } from '../core/ports/clock.js';
import type { OrderStore } from '../core/ports/orderStore.js';
import { AlertName, type Telemetry } from '../core/ports/telemetry.js';
import { errorCode } from '../core/errors.js';
import { toStoreError } from './cosmosErrors.js';
import type { GapSnapshot } from './metrics.js';

/** Where the monitor finds orders with parked entries or owed alerts. */
export interface ParkedOrdersSource {
  ordersWithParked(): Promise<OrderDocument[]>;
}

/** {@link ParkedOrdersSource} on the `orders` container (one cross-partition query over order documents). */
export class CosmosParkedOrders implements ParkedOrdersSource {
  constructor(private readonly container: Container) {}

  async ordersWithParked(): Promise<OrderDocument[]> {
    try {
      const { resources } = await this.container.items
        .query<OrderDocument>({
          query: "SELECT * FROM c WHERE c.docType = 'order' AND (ARRAY_LENGTH(c.parked) > 0 OR ARRAY_CONTAINS(c.rejected, { alerted: false }, true))",
        })
        .fetchAll();
      return resources;
    } catch (error) {
      throw toStoreError(error, 'read', 'orders with parked entries');
    }
  }
}

/** What {@link runGapMonitor} needs. */
export interface GapMonitorDeps {
  orders: ParkedOrdersSource;
  /** Reads a gap's oldest parked entry and writes its alert mark (`ParkedEntryDocument.gapAlert`) under its ETag. */
  store: Pick<OrderStore, 'readParked' | 'commit'>;
  telemetry: Telemetry;
  /** Age of a gap that raises `GapTooOld` (`CoreConfig.gapAlertAgeMs`). */
  gapAlertAgeMs: number;
  /** Quiet time of a gap after its alert (`CoreConfig.gapAlertRepeatMs`). @default CORE_DEFAULTS.gapAlertRepeatMs */
  gapAlertRepeatMs?: number;
  /** Receives the parked gauges. @default none */
  metrics?: { gaps(snapshot: GapSnapshot): void };
  /** @default systemClock */
  clock?: Clock;
  /** The processor's drain entry point, for orders that need a follow-up (`orderNeedsFollowUp`). @default none */
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

/** One scan. Rejects only if the orders cannot be read; a failing drain is logged and retried next time. */
export async function runGapMonitor(deps: GapMonitorDeps): Promise<GapMonitorReport> {
  const nowMs = (deps.clock ?? systemClock).now();
  const docs = await deps.orders.ordersWithParked();
  const report: GapMonitorReport = { orders: docs.length, parkedEntries: 0, oldestGapAgeMs: 0, stale: [], alerted: [], drained: [] };
  for (const doc of docs) {
    report.parkedEntries += doc.parked.length;
    for (const p of doc.parked) report.oldestGapAgeMs = Math.max(report.oldestGapAgeMs, nowMs - Date.parse(p.parkedAt));
    const gap = staleGap(doc, { nowMs, gapAlertAgeMs: deps.gapAlertAgeMs });
    if (gap) {
      report.stale.push(gap);
      if (await alertOnce(deps, gap, nowMs)) report.alerted.push(gap);
    }
    if (deps.drain && orderNeedsFollowUp(doc)) await drainQuietly(deps, doc.orderId, report);
  }
  deps.metrics?.gaps({ parkedEntries: report.parkedEntries, oldestGapAgeMs: report.oldestGapAgeMs });
  return report;
}

/**
 * Raises `GapTooOld` for a stale gap if the core says it is due, recording it first on the gap's oldest parked
 * entry under its ETag, so that another instance's scan, or this one after a restart, stays quiet. A 412/404 means
 * another writer got there (a scan that marked it, a drain that ended the gap): no alert, the next scan decides.
 * A thrown write (transient, outcome unknown) still raises it: the decision stands and, if the mark did not land,
 * the next scan repeats the alert rather than dropping it.
 */
async function alertOnce(deps: GapMonitorDeps, gap: StaleGap, nowMs: number): Promise<boolean> {
  let oldest: Awaited<ReturnType<GapMonitorDeps['store']['readParked']>>;
  try {
    oldest = await deps.store.readParked(gap.orderId, parkedEntryId(gap.sequence));
  } catch (error) {
    deps.telemetry.log('warn', 'gap monitor could not read a parked entry', { orderId: gap.orderId, sequence: gap.sequence, code: errorCode(error) });
    return false;
  }
  const mark = gapAlertDue(gap, oldest?.doc, { nowMs, gapAlertRepeatMs: deps.gapAlertRepeatMs ?? CORE_DEFAULTS.gapAlertRepeatMs });
  if (!oldest || !mark) return false;
  try {
    const result = await deps.store.commit(gap.orderId, [{ kind: 'replace', doc: { ...oldest.doc, gapAlert: mark }, ifMatch: oldest.etag }]);
    if (!result.ok) return false;
  } catch (error) {
    deps.telemetry.log('warn', 'gap monitor could not record a GapTooOld alert; the next scan repeats it', { orderId: gap.orderId, code: errorCode(error) });
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

async function drainQuietly(deps: GapMonitorDeps, orderId: string, report: GapMonitorReport): Promise<void> {
  try {
    const { drained } = await deps.drain!(orderId);
    report.drained.push({ orderId, drained });
  } catch (error) {
    deps.telemetry.log('warn', 'gap monitor drain failed', { orderId, code: errorCode(error), description: error instanceof Error ? error.message : String(error) });
  }
}
