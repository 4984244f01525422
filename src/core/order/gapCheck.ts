import type { OrderDocument } from '../documents/orderDocument.js';
import type { GapAlertMark, ParkedEntryDocument } from '../documents/parkedEntryDocument.js';

/** A gap that has been open too long (`GapTooOld`). */
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
 */
export function staleGap(doc: OrderDocument, at: { nowMs: number; gapAlertAgeMs: number }): StaleGap | undefined {
  const { nowMs, gapAlertAgeMs } = at;
  let oldest: OrderDocument['parked'][number] | undefined;
  for (const p of doc.parked) if (!oldest || p.parkedAt < oldest.parkedAt) oldest = p;
  if (!oldest) return undefined;
  const ageMs = nowMs - Date.parse(oldest.parkedAt);
  if (ageMs < gapAlertAgeMs) return undefined;
  return { orderId: doc.orderId, waitingFor: doc.lastSequence + 1, entryId: oldest.entryId, sequence: oldest.sequence, ageMs, parked: doc.parked.length };
}

/**
 * Whether the stale `gap` raises `GapTooOld` now, and the mark that records it; `undefined` to stay quiet. Rule 5:
 * once per gap, again only when its first missing sequence changes (the gap partly filled) or `gapAlertRepeatMs`
 * after the last alert. `oldest` is the gap's oldest parked entry (`gap.sequence`) as stored, which keeps the last
 * mark (see `ParkedEntryDocument.gapAlert`); without it (drained since the order was read) the next scan decides.
 */
export function gapAlertDue(
  gap: StaleGap,
  oldest: ParkedEntryDocument | undefined,
  at: { nowMs: number; gapAlertRepeatMs: number },
): GapAlertMark | undefined {
  if (oldest?.sequence !== gap.sequence) return undefined;
  const last = oldest.gapAlert;
  // An unreadable time counts as no alert: better one alert too many than a gap never reported again.
  const quiet = last !== undefined && last.missingSequence === gap.waitingFor && at.nowMs - Date.parse(last.alertedAt) < at.gapAlertRepeatMs;
  return quiet ? undefined : { alertedAt: new Date(at.nowMs).toISOString(), missingSequence: gap.waitingFor };
}
