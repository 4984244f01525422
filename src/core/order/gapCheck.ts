import type { OrderDocument } from '../documents/orderDocument.js';

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
