import { LRUCache } from 'lru-cache';
import type { OutboxHold } from '../documents/outboxHold.js';
import type { Stored } from '../ports/orderStore.js';

/** What one relay instance knows of an order: its hold (or none) and the last record it relayed. */
interface Known {
  hold: Stored<OutboxHold> | undefined;
  /** Sequence of the last record this instance relayed (sent or held) for the order; 0 when none. */
  lastRelayed: number;
}

/**
 * What the relay knows about orders' holds without reading them. A hold it wrote, read or met in the change feed
 * is kept (a write under its ETag finds it changed or gone). Its own "no hold" is trusted only for a batch whose
 * first record of the order directly follows the last one this instance relayed for it — nothing can have been
 * held in between by anyone — or is the order's first record (nothing before it to hold). Any other batch (a lease
 * that moved away and back, a replay, an order this instance never saw) reads the marker once. No time-based expiry:
 * whether another instance wrote a hold meanwhile is a matter of sequences, not of time.
 */
export class HoldCache {
  private readonly known: LRUCache<string, Known>;

  /** @param maxOrders orders remembered, least recently used dropped first (a dropped order is read again). */
  constructor(maxOrders = 10_000) {
    this.known = new LRUCache({ max: maxOrders });
  }

  /** The order's hold, `undefined` for a trusted "no hold", or `'unknown'`: read the marker. */
  lookup(orderId: string, firstSequence: number): Stored<OutboxHold> | undefined | 'unknown' {
    const known = this.known.get(orderId);
    if (known?.hold !== undefined) return known.hold;
    if (firstSequence === 1) return undefined;
    if (known !== undefined && firstSequence === known.lastRelayed + 1) return undefined;
    return 'unknown';
  }

  /** A marker read or met in the change feed (an older copy than the one this instance wrote is ignored). */
  met(orderId: string, hold: Stored<OutboxHold> | undefined): void {
    const known = this.known.get(orderId);
    if (hold !== undefined && known?.hold !== undefined && known.hold.doc.heldThrough > hold.doc.heldThrough) return;
    this.known.set(orderId, { hold, lastRelayed: known?.lastRelayed ?? 0 });
  }

  /** This instance relayed the order's records through `lastSequence`; `hold` is what it knows of the hold now. */
  relayed(orderId: string, lastSequence: number, hold: Stored<OutboxHold> | undefined): void {
    this.known.set(orderId, { hold, lastRelayed: lastSequence });
  }
}
