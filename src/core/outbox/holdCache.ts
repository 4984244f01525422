import type { OutboxHold } from '../documents/outboxHold.js';
import type { Clock } from '../ports/clock.js';
import type { Stored } from '../ports/orderStore.js';

/**
 * What the relay knows about orders' holds without reading them: a hold it read, wrote or met in the change feed
 * (kept until a write under its ETag finds it changed or gone), and "no hold", kept for a while only. Holds live
 * in the orders' partitions, so one written by another instance reaches this relay through the same change feed,
 * ahead of that order's later records; the expiry covers the rest (a lease that moved away and back meanwhile).
 */
export class HoldCache {
  private readonly known = new Map<string, { hold: Stored<OutboxHold> | undefined; until: number }>();

  /** @param noHoldMs how long "no hold" is trusted. @param maxOrders orders remembered, oldest dropped first. */
  constructor(
    private readonly noHoldMs: number,
    private readonly clock: Clock,
    private readonly maxOrders = 4096,
  ) {}

  lookup(orderId: string): Stored<OutboxHold> | undefined | 'unknown' {
    const entry = this.known.get(orderId);
    if (entry === undefined || entry.until <= this.clock.now()) return 'unknown';
    return entry.hold;
  }

  remember(orderId: string, hold: Stored<OutboxHold> | undefined): void {
    this.known.delete(orderId);
    this.known.set(orderId, { hold, until: hold === undefined ? this.clock.now() + this.noHoldMs : Number.POSITIVE_INFINITY });
    if (this.known.size > this.maxOrders) this.known.delete(this.known.keys().next().value!);
  }

  forget(orderId: string): void {
    this.known.delete(orderId);
  }
}
