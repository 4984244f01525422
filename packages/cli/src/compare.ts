import { isDeepStrictEqual } from 'node:util';
import type { BusinessState, OrderView } from 'ledger-convoy/core';
import type { Expectation } from './expectation.js';
import type { ExpectedDeadLetter } from './runPlan.js';
import { belongsToRun } from './ids.js';

/** A dead letter as found on a dead-letter queue. */
export interface FoundDeadLetter {
  queue: 'orders' | 'ledger';
  /** `entryId` (orders; the message id when the body has none) or the message id (ledger). */
  id: string;
  reason: string;
  messageId: string;
  description: string | undefined;
}

/** An order whose state differs from the expectation. */
interface OrderMismatch {
  orderId: string;
  /** One line per differing field: `total: expected 1200, found 1100`. */
  differences: string[];
}

/** Expected and found counts of one dead-letter reason. */
interface ReasonCount {
  reason: string;
  expected: number;
  found: number;
}

/** The outcome of comparing an expectation with what the system shows. */
export interface Comparison {
  ok: boolean;
  orders: { expected: number; matched: number; mismatched: OrderMismatch[]; missing: string[] };
  deadLetters: { byReason: ReasonCount[]; missing: ExpectedDeadLetter[]; unexpected: FoundDeadLetter[] };
}

/**
 * Compares the expectation with the orders (`undefined` = 404) and the dead letters found. Dead letters of other
 * runs are ignored: only ids with the run's prefix count.
 */
export function compareWithExpectation(
  expectation: Expectation,
  orders: ReadonlyMap<string, OrderView | undefined>,
  deadLetters: readonly FoundDeadLetter[],
): Comparison {
  const mismatched: OrderMismatch[] = [];
  const missing: string[] = [];
  let matched = 0;
  for (const expected of expectation.orders) {
    const found = orders.get(expected.orderId);
    if (found === undefined) {
      missing.push(expected.orderId);
      continue;
    }
    const differences = orderDifferences(expected, found);
    if (differences.length === 0) matched++;
    else mismatched.push({ orderId: expected.orderId, differences });
  }

  const ours = deadLetters.filter((d) => belongsToRun(d.id, expectation.run));
  const unmatched = [...ours];
  const missingDeadLetters: ExpectedDeadLetter[] = [];
  for (const expected of expectation.deadLetters) {
    const at = unmatched.findIndex(
      (d) => d.queue === expected.queue && d.id === expected.id && d.reason === expected.reason,
    );
    if (at >= 0) unmatched.splice(at, 1);
    else missingDeadLetters.push(expected);
  }
  const reasons = new Map<string, ReasonCount>();
  const count = (reason: string): ReasonCount => {
    const entry = reasons.get(reason) ?? { reason, expected: 0, found: 0 };
    reasons.set(reason, entry);
    return entry;
  };
  for (const d of expectation.deadLetters) count(d.reason).expected++;
  for (const d of ours) count(d.reason).found++;

  return {
    ok: mismatched.length === 0 && missing.length === 0 && missingDeadLetters.length === 0 && unmatched.length === 0,
    orders: { expected: expectation.orders.length, matched, mismatched, missing },
    deadLetters: {
      byReason: [...reasons.values()].sort((a, b) => a.reason.localeCompare(b.reason)),
      missing: missingDeadLetters,
      unexpected: unmatched,
    },
  };
}

/**
 * Field-by-field differences of an order's view from its expected business state, every business field and each
 * transaction whole, so a field the oracle does not expect (or the view lacks) is a difference; waiting entries count
 * too.
 */
export function orderDifferences(expected: BusinessState, found: OrderView): string[] {
  const out: string[] = [];
  const { parked = [], rejected = [], hold: _hold, ...business } = found as OrderView & { hold?: unknown };
  const fields = new Set([...Object.keys(expected), ...Object.keys(business)]) as Set<keyof BusinessState>;
  for (const field of fields) {
    const [want, got] = [expected[field], business[field]];
    if (!isDeepStrictEqual(want, got))
      out.push(`${field}: expected ${JSON.stringify(want)}, found ${JSON.stringify(got)}`);
  }
  if (parked.length > 0)
    out.push(`parked: ${parked.map((p) => `${p.sequence}:${p.entryId}`).join(', ')} still waiting`);
  if (rejected.length > 0)
    out.push(`rejected: ${rejected.map((r) => `${r.sequence}:${r.entryId} (${r.reason})`).join(', ')}`);
  return out;
}
