/**
 * The console's read port over the order store: lists of orders an operator can open without knowing an id, each
 * paged in a stable order by a continuation (the position after the page's last order, never a count to skip, so a
 * page is neither repeated nor skipped while orders change). Only what the pages show; nothing is written.
 */

/** The lists of the Orders page. */
export const OrderTab = {
  /** Entries parked behind a gap (rule 5), by orderId. */
  Parked: 'parked',
  /** Parked entries rejected at their turn (rule 11), by orderId. */
  Rejected: 'rejected',
  /** Orders whose outbox is on hold, by orderId. */
  Held: 'held',
  /** Every order, the most recently changed first. */
  Recent: 'recent',
} as const;
/** One of {@link OrderTab}. */
export type OrderTab = (typeof OrderTab)[keyof typeof OrderTab];

/** One order as a list shows it. */
export interface OrderRow {
  orderId: string;
  /** `pending`, `open`, `deleted`; undefined for a held order whose document was not read. */
  status: string | undefined;
  lastSequence: number | undefined;
  parked: number[];
  /** When the oldest parked entry was parked: the gap's age. */
  oldestParkedAt: string | undefined;
  rejected: { sequence: number; entryId: string; reason: string }[];
  /** The held targets, for the `held` list. */
  heldTargets: string[];
  /** The order's last change (the hold's start for `held`). */
  changedAt: string | undefined;
}

/** One page of a list, and where the next one starts (undefined: this was the last). */
export interface OrderPage {
  orders: OrderRow[];
  continuation: string | undefined;
}

/** How many orders wait, for the overview. */
export interface WaitingCounts {
  parked: number;
  rejected: number;
  held: number;
}

/** The port. */
export interface OrderListing {
  page(tab: OrderTab, options: { size: number; continuation?: string }): Promise<OrderPage>;
  counts(): Promise<WaitingCounts>;
}

/** Whether `value` names a list. */
export function isOrderTab(value: string | undefined): value is OrderTab {
  return Object.values<string>(OrderTab).includes(value ?? '');
}
