/**
 * The gap monitor's scan (design rule 5): an idle session never looks at its order again, so a timer finds the
 * orders with parked entries (or a `ParkedEntryRejected` alert still owed), raises `GapTooOld` for each gap older
 * than `GAP_ALERT_AGE`, reports the parked gauges, and lets the processor's drain finish what a session left
 * (a parked entry already due, an owed alert).
 */
import type { Container } from '@azure/cosmos';
import type { OrderDocument } from '../core/documents/orderDocument.js';
import { orderNeedsFollowUp } from '../core/order/followUpCheck.js';
import { staleGap, type StaleGap } from '../core/order/gapCheck.js';
import { systemClock, type Clock } from '../core/ports/clock.js';
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
  telemetry: Telemetry;
  /** Age of a gap that raises `GapTooOld` (`CoreConfig.gapAlertAgeMs`). */
  gapAlertAgeMs: number;
  /** Receives the parked gauges. @default none */
  metrics?: { gaps(snapshot: GapSnapshot): void };
  /** @default systemClock */
  clock?: Clock;
  /** The processor's drain entry point, for orders that need a follow-up (`orderNeedsFollowUp`). @default none */
  drain?: (orderId: string) => Promise<{ drained: number }>;
  /** Runs after a drain applied entries (the outbox's fast path for their records). @default none */
  afterDrain?: (orderId: string) => void;
}

/** What one scan found and did. */
export interface GapMonitorReport {
  /** Orders with parked entries. */
  orders: number;
  parkedEntries: number;
  oldestGapAgeMs: number;
  /** Gaps that raised `GapTooOld`. */
  stale: StaleGap[];
  /** Orders drained, with the entries each applied. */
  drained: { orderId: string; drained: number }[];
}

/** One scan. Rejects only if the orders cannot be read; a failing drain is logged and retried next time. */
export async function runGapMonitor(deps: GapMonitorDeps): Promise<GapMonitorReport> {
  const nowMs = (deps.clock ?? systemClock).now();
  const docs = await deps.orders.ordersWithParked();
  const report: GapMonitorReport = { orders: docs.length, parkedEntries: 0, oldestGapAgeMs: 0, stale: [], drained: [] };
  for (const doc of docs) {
    report.parkedEntries += doc.parked.length;
    for (const p of doc.parked) report.oldestGapAgeMs = Math.max(report.oldestGapAgeMs, nowMs - Date.parse(p.parkedAt));
    const gap = staleGap(doc, { nowMs, gapAlertAgeMs: deps.gapAlertAgeMs });
    if (gap) {
      report.stale.push(gap);
      deps.telemetry.alert(AlertName.GapTooOld, {
        orderId: gap.orderId,
        entryId: gap.entryId,
        sequence: gap.sequence,
        missingSequence: gap.waitingFor,
        ageMs: gap.ageMs,
        parked: gap.parked,
      });
    }
    if (deps.drain && orderNeedsFollowUp(doc)) await drainQuietly(deps, doc.orderId, report);
  }
  deps.metrics?.gaps({ parkedEntries: report.parkedEntries, oldestGapAgeMs: report.oldestGapAgeMs });
  return report;
}

async function drainQuietly(deps: GapMonitorDeps, orderId: string, report: GapMonitorReport): Promise<void> {
  try {
    const { drained } = await deps.drain!(orderId);
    report.drained.push({ orderId, drained });
    if (drained > 0) deps.afterDrain?.(orderId);
  } catch (error) {
    deps.telemetry.log('warn', 'gap monitor drain failed', { orderId, code: errorCode(error), description: error instanceof Error ? error.message : String(error) });
  }
}
