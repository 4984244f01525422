import { errorMessage, foldOrderEvent, type BusinessState, type Entry } from '../../src/core/index.js';
import { compareWithExpectation, orderDifferences } from '@ledger-convoy/cli';
import type { Expectation } from '@ledger-convoy/cli';
import { expectedOrders } from '@ledger-convoy/cli';
import { eventIdentity, type Observation, type SeenEvent } from './observe.js';

/** The verdict on one invariant, with up to a few examples of what broke it. */
export interface InvariantResult {
  name: string;
  ok: boolean;
  /** What was checked, in numbers. */
  summary: string;
  /** Examples of violations (at most {@link MAX_EXAMPLES}). */
  violations: string[];
  /**
   * A bound the run measures and reports but does not fail on: the duplicate-send figure of a run smaller than
   * {@link DUPLICATE_BOUND_MIN_RECORDS}, where one replayed batch alone can exceed it.
   */
  goal?: true;
}

/** Whether the run's verdict holds: every invariant that is not a {@link InvariantResult.goal} passed. */
export function invariantsHold(results: readonly InvariantResult[]): boolean {
  return results.every((i) => i.ok || i.goal);
}

const MAX_EXAMPLES = 8;

/** Most duplicate sends per 1,000 stored events the run accepts (replays after crashes and lost leases). */
export const MAX_DUPLICATES_PER_THOUSAND = 20;
/**
 * Records a run needs for that bound to be enforced (the default run's size): a replay repeats up to one
 * invocation's records (≈ 30), more than 20 per 1,000 of the small run's 1,500 on its own.
 */
export const DUPLICATE_BOUND_MIN_RECORDS = 10_000;

/** An accepted or refused webhook POST: `key` is the event's (`source`, `id`) ({@link eventIdentity}). */
export interface WebhookPostSeen {
  key: string;
  status: number;
  orderId?: string;
  sequence?: number;
}

/** What the relay's targets and the release path saw, beside the {@link Observation}. */
export interface RelayObservation {
  /** Every POST the webhook received, in arrival order (`status` 2xx: accepted), or `undefined` without a webhook. */
  webhookPosts?: readonly WebhookPostSeen[];
  /** Orders whose webhook refused at least one POST (an outage of the fault plan). */
  failedWebhookOrders: ReadonlySet<string>;
  /** Orders the relay put on hold (the hold timer released them). */
  heldOrders: ReadonlySet<string>;
  /** The failures holds were created for, by order (a webhook too slow to answer within the budget holds too). */
  holdErrors?: ReadonlyMap<string, readonly string[]>;
}

/** Sends beyond the first per stored event (its {@link eventIdentity}), at `order-events` and at the webhook (accepted POSTs). */
export function duplicateSends(
  outboxIds: readonly string[],
  events: readonly SeenEvent[],
  webhookPosts: RelayObservation['webhookPosts'],
): { duplicates: number; perThousand: number } {
  const ids = new Set(outboxIds);
  let duplicates = 0;
  const count = (keys: Iterable<string>): void => {
    const seen = new Map<string, number>();
    for (const key of keys) if (ids.has(key)) seen.set(key, (seen.get(key) ?? 0) + 1);
    for (const n of seen.values()) duplicates += n - 1;
  };
  count(events.map((e) => e.key));
  count((webhookPosts ?? []).filter((p) => p.status >= 200 && p.status < 300).map((p) => p.key));
  return { duplicates, perThousand: ids.size === 0 ? 0 : Math.round((duplicates * 1000 * 10) / ids.size) / 10 };
}

/**
 * Checks every invariant of the run against what was observed. `reusedKeys` are the other bodies sent under a
 * valid entry's `entryId` (IdempotencyKeyConflict on purpose): whichever body arrives first is the one applied.
 * The duplicate-send bound fails the run only from `duplicateBoundMinRecords` stored events on.
 */
export function checkInvariants(
  expectation: Expectation,
  entries: readonly Entry[],
  reusedKeys: readonly Entry[],
  seen: Observation,
  relay: RelayObservation = { failedWebhookOrders: new Set(), heldOrders: new Set() },
  duplicateBoundMinRecords = DUPLICATE_BOUND_MIN_RECORDS,
): InvariantResult[] {
  const comparison = compareWithExpectation(expectation, seen.orders, seen.deadLetters);
  const prefixes = oraclePrefixes(entries, reusedKeys);
  const results: InvariantResult[] = [];

  // 1. Exactly once, as the business state shows it: a lost entry or a double apply changes lastSequence/total.
  const stateProblems: string[] = comparison.orders.missing.map((id) => `${id}: not found (404)`);
  for (const expected of expectation.orders) {
    const view = seen.orders.get(expected.orderId);
    if (!view) continue;
    const fields = orderDifferences(expected, view).filter((d) => !/^(parked|rejected):/.test(d));
    if (fields.length > 0) stateProblems.push(`${expected.orderId}: ${fields.join('; ')}`);
  }
  results.push(
    result(
      'every valid entry applied exactly once (order view = oracle)',
      stateProblems,
      `${expectation.orders.length} orders, ${entries.length} entries`,
    ),
  );

  // 2. The applied history: one applied record per valid entry, at its own sequence, nothing else.
  const expectedAt = new Map(entries.map((e) => [`${e.orderId}#${e.sequence}`, e.entryId]));
  const historyProblems: string[] = [];
  const appliedRows = seen.rows.filter((r) => r.docType === 'entry' && r.status === 'applied');
  const appliedSeen = new Set<string>();
  for (const row of appliedRows) {
    const key = `${row.orderId}#${String(row.sequence)}`;
    if (expectedAt.get(key) !== row.entryId)
      historyProblems.push(
        `${row.orderId}: applied ${String(row.entryId)} at ${String(row.sequence)}, expected ${String(expectedAt.get(key))}`,
      );
    if (appliedSeen.has(key)) historyProblems.push(`${key}: applied twice`);
    appliedSeen.add(key);
  }
  for (const [key, entryId] of expectedAt)
    if (!appliedSeen.has(key)) historyProblems.push(`${key}: ${entryId} never applied`);
  results.push(
    result(
      'applied history: each entry once, at its sequence',
      historyProblems,
      `${appliedRows.length} applied records`,
    ),
  );

  // 3. Per-order order, as a downstream consumer sees it: order-events of each order are 1..n in order, and each
  //    carries exactly the oracle's state after that entry.
  const { orderProblems, repeats } = checkEvents(seen.events, prefixes);
  results.push(
    result(
      'a consumer deduping on (source, id) sees each event once, in per-order order (1..n, its changes folded = oracle after each entry), keyed as the contract says',
      orderProblems,
      `${seen.events.length} events`,
    ),
  );
  results.push(result('no order-event delivered twice', repeats, `${repeats.length} repeated message ids`));

  // 4. Commit times follow sequence within each order (hosts share the machine's clock).
  const timeProblems: string[] = [];
  const byOrder = groupBy(appliedRows, (r) => r.orderId);
  for (const [orderId, rows] of byOrder) {
    const sorted = [...rows].sort((a, b) => (a.sequence ?? 0) - (b.sequence ?? 0));
    for (let i = 1; i < sorted.length; i++) {
      const [prev, cur] = [sorted[i - 1], sorted[i]];
      if ((prev?.committedAt ?? '') > (cur?.committedAt ?? ''))
        timeProblems.push(
          `${orderId}: ${String(cur?.sequence)} committed at ${String(cur?.committedAt)}, before ${String(prev?.sequence)} (${String(prev?.committedAt)})`,
        );
    }
  }
  results.push(result('applied in sequence order (committedAt)', timeProblems, `${byOrder.size} orders`));

  // The stored events are the applied records, never changed after commit: delivered means its messageId reached
  // order-events and the webhook accepted it, and, after the release path ran, no order is left on hold.
  const outbox = appliedRows;
  const sent = new Set(seen.events.map((e) => e.key));
  const posted =
    relay.webhookPosts &&
    new Set(relay.webhookPosts.filter((p) => p.status >= 200 && p.status < 300).map((p) => p.key));
  const keyOf = (r: { orderId: string; entryId?: string }) => eventIdentity(r.orderId, r.entryId ?? '');
  const undelivered = [
    ...outbox.filter((r) => !sent.has(keyOf(r))).map((r) => `${keyOf(r)}: not on order-events`),
    ...(posted
      ? outbox.filter((r) => !posted.has(keyOf(r))).map((r) => `${keyOf(r)}: not accepted by the webhook`)
      : []),
    ...seen.rows.filter((r) => r.docType === 'outbox-hold').map((r) => `${r.orderId}: on hold (${r.id})`),
  ];
  results.push(
    result(
      'every stored event delivered, no hold left',
      undelivered,
      `${outbox.length} stored events, ${relay.heldOrders.size} order(s) held and released`,
    ),
  );

  // No stored event becomes unreadable while a downstream has not received it: each applied entry's event a target
  // still lacks is there to be read (its record, with its event and key), whatever expired or was cleaned up.
  const readable = new Set(appliedRows.filter((r) => r.eventReadable === true).map(keyOf));
  const lacking = (key: string) => !sent.has(key) || (posted !== undefined && !posted.has(key));
  const unreadable: string[] = [];
  for (const [key, entryId] of expectedAt) {
    const identity = eventIdentity(key.slice(0, key.lastIndexOf('#')), entryId);
    if (lacking(identity) && !readable.has(identity))
      unreadable.push(`${identity}: not received by every target, and its stored event cannot be read`);
  }
  results.push(
    result(
      'no stored event unreadable while a downstream has not received it',
      unreadable,
      `${readable.size} readable stored events`,
    ),
  );

  // The webhook, as a consumer deduping on the event's (source, id) sees it: each order's first acceptances in sequence order.
  if (relay.webhookPosts) {
    const webhookProblems = webhookOrderProblems(relay.webhookPosts);
    results.push(
      result(
        'a webhook consumer deduping on (source, id) sees each order in sequence order (1..n)',
        webhookProblems,
        `${relay.webhookPosts.length} POSTs`,
      ),
    );
  }

  // Replays (a crash before the checkpoint, a lost lease, a retried batch) repeat sends; consumers dedupe them,
  // but their number is the relay's cost and stays bounded.
  const { duplicates, perThousand } = duplicateSends(outbox.map(keyOf), seen.events, relay.webhookPosts);
  results.push({
    ...result(
      `duplicate sends at the targets ≤ ${MAX_DUPLICATES_PER_THOUSAND} per 1,000 records`,
      perThousand > MAX_DUPLICATES_PER_THOUSAND
        ? [`${duplicates} duplicate sends: ${perThousand} per 1,000 records`]
        : [],
      `${duplicates} duplicate sends over ${outbox.length} records: ${perThousand} per 1,000`,
    ),
    ...(outbox.length < duplicateBoundMinRecords && { goal: true as const }),
  });

  // A POST the webhook answers too late (a loaded machine) fails like a refused one: its order is held too.
  const timedOut = (id: string) => (relay.holdErrors?.get(id) ?? []).some((e) => /TimeoutError|aborted/.test(e));
  const unplannedHolds = [...relay.heldOrders]
    .filter((id) => !relay.failedWebhookOrders.has(id) && !timedOut(id))
    .map((id) => `${id}: held, but its webhook never refused a POST nor timed out`);
  const slow = [...relay.heldOrders].filter((id) => !relay.failedWebhookOrders.has(id) && timedOut(id)).length;
  results.push(
    result(
      'holds only for orders whose webhook the plan failed (or did not answer within the budget)',
      unplannedHolds,
      `${relay.heldOrders.size} held: ${relay.failedWebhookOrders.size} orders failed by the plan, ${slow} held for a POST that timed out`,
    ),
  );

  // 5. Dead letters: every expected one, with its exact reason, and nothing else anywhere.
  const missing = comparison.deadLetters.missing.map((d) => `${d.queue}: ${d.id} ${d.reason} (${d.cause})`);
  results.push(
    result(
      'every expected dead letter present with its exact reason',
      missing,
      `${expectation.deadLetters.length} expected`,
    ),
  );
  const ours = new Set(comparison.deadLetters.unexpected);
  const foreign = seen.deadLetters.filter((d) => !d.id.startsWith(`${expectation.run}-`));
  const extra = [...ours, ...foreign].map((d) =>
    `${d.queue}: ${d.id} ${d.reason} (${d.messageId}) ${d.description ?? ''}`.trim(),
  );
  if (seen.eventDeadLetters > 0) extra.push(`order-events: ${seen.eventDeadLetters} dead letters`);
  results.push(
    result('nothing else in any dead-letter queue', extra, `${seen.deadLetters.length + seen.eventDeadLetters} found`),
  );

  // 6. Nothing left waiting.
  const waiting: string[] = [];
  for (const [orderId, view] of seen.orders) {
    if (view?.parked?.length) waiting.push(`${orderId}: parked ${view.parked.map((p) => p.sequence).join(',')}`);
    if (view?.rejected?.length)
      waiting.push(`${orderId}: rejected ${view.rejected.map((r) => `${r.sequence} ${r.reason}`).join(',')}`);
  }
  // A parked record is always waiting; a rejected record of the entry that applied its sequence was left behind by
  // that batch, which replaces it with the applied one.
  for (const row of seen.rows) {
    if (row.docType !== 'entry') continue;
    const appliedThere = expectedAt.get(`${row.orderId}#${String(row.sequence)}`) === row.entryId;
    if (row.status === 'parked' || (row.status === 'rejected' && appliedThere))
      waiting.push(`${row.orderId}: ${row.id} still stored (${String(row.status)})`);
  }
  results.push(result('no parked entry left behind', waiting, 'views, parked and rejected records'));
  results.push(
    result(
      'queues drained',
      seen.backlog > 0 ? [`${seen.backlog}+ messages still on ledger/orders`] : [],
      'ledger, orders',
    ),
  );
  return results;
}

/**
 * The oracle's possible states of each order after each of its sequences (`orderId#sequence` → states): one per
 * sequence, two where a reused key's other body may have been applied at that sequence instead — and after it, since
 * events carry changes and a consumer's fold carries that body on.
 */
export function oraclePrefixes(
  entries: readonly Entry[],
  reusedKeys: readonly Entry[] = [],
): Map<string, BusinessState[]> {
  const out = new Map<string, BusinessState[]>();
  const add = (key: string, state: BusinessState | undefined): void => {
    if (state) out.set(key, [...(out.get(key) ?? []), state]);
  };
  for (const [orderId, list] of groupBy(entries, (e) => e.orderId)) {
    const sorted = [...list].sort((a, b) => a.sequence - b.sequence);
    for (let s = 1; s <= sorted.length; s++) add(`${orderId}#${s}`, expectedOrders(sorted.slice(0, s))[0]);
    for (const other of reusedKeys.filter((e) => e.orderId === orderId)) {
      const swapped = sorted.map((e) => (e.sequence === other.sequence ? other : e));
      for (let s = other.sequence; s <= swapped.length; s++)
        add(`${orderId}#${s}`, expectedOrders(swapped.slice(0, s))[0]);
    }
  }
  return out;
}

function checkEvents(
  events: readonly SeenEvent[],
  prefixes: ReadonlyMap<string, BusinessState[]>,
): { orderProblems: string[]; repeats: string[] } {
  const orderProblems: string[] = [];
  const repeats: string[] = [];
  const ids = new Set<string>();
  const next = new Map<string, number>();
  // What a consumer holds: each order's events folded in sequence order.
  const folded = new Map<string, BusinessState>();
  for (const event of events) {
    if (ids.has(event.key)) {
      repeats.push(`${event.key} (sequence ${String(event.sequence)})`);
      continue;
    }
    ids.add(event.key);
    if (event.messageId !== event.expectedMessageId)
      orderProblems.push(`${event.key}: messageId ${event.messageId}, expected ${event.expectedMessageId}`);
    const orderId = event.sessionId ?? '(no session)';
    const want = (next.get(orderId) ?? 0) + 1;
    if (event.sequence !== want)
      orderProblems.push(`${orderId}: event for sequence ${String(event.sequence)} where ${want} was due`);
    next.set(orderId, Math.max(want, event.sequence ?? 0));
    let state: BusinessState | undefined;
    try {
      state = event.data && foldOrderEvent(folded.get(orderId), event.data);
    } catch (error) {
      orderProblems.push(`${orderId}#${String(event.sequence)}: ${errorMessage(error)}`);
    }
    if (state) folded.set(orderId, state);
    const expected = prefixes.get(`${orderId}#${String(event.sequence)}`);
    if (!expected)
      orderProblems.push(`${orderId}: event for sequence ${String(event.sequence)} the oracle does not have`);
    else if (!expected.some((oracle) => sameState(oracle, state))) {
      orderProblems.push(
        `${orderId}#${String(event.sequence)}: folded state ${JSON.stringify(state)} ≠ oracle ${JSON.stringify(expected[0])}`,
      );
    }
  }
  const lastByOrder = new Map<string, number>();
  for (const key of prefixes.keys()) {
    const [orderId, s] = key.split('#') as [string, string];
    lastByOrder.set(orderId, Math.max(lastByOrder.get(orderId) ?? 0, Number(s)));
  }
  for (const [orderId, last] of lastByOrder) {
    const got = next.get(orderId) ?? 0;
    if (got < last) orderProblems.push(`${orderId}: events stop at ${got} of ${last}`);
  }
  return { orderProblems, repeats };
}

/** Orders whose first accepted POST of each event (`source`, `id`) does not come in sequence order 1, 2, … */
export function webhookOrderProblems(posts: readonly WebhookPostSeen[]): string[] {
  const problems: string[] = [];
  const accepted = new Set<string>();
  const next = new Map<string, number>();
  for (const post of posts) {
    if (post.status < 200 || post.status > 299 || accepted.has(post.key) || post.orderId === undefined) continue;
    accepted.add(post.key);
    const want = (next.get(post.orderId) ?? 0) + 1;
    if (post.sequence !== want)
      problems.push(`${post.orderId}: webhook accepted sequence ${String(post.sequence)} where ${want} was due`);
    next.set(post.orderId, Math.max(want, post.sequence ?? 0));
  }
  return problems;
}

function sameState(expected: BusinessState, found: BusinessState | undefined): boolean {
  if (!found) return false;
  const pick = (s: BusinessState) =>
    JSON.stringify([
      s.orderId,
      s.status,
      s.customerId,
      s.currency,
      s.lastSequence,
      s.total,
      s.transactions.map((t) => [t.transactionId, t.amount]),
    ]);
  return pick(expected) === pick(found);
}

function result(name: string, problems: readonly string[], summary: string): InvariantResult {
  return {
    name,
    ok: problems.length === 0,
    summary: problems.length ? `${summary}; ${problems.length} violation(s)` : summary,
    violations: problems.slice(0, MAX_EXAMPLES),
  };
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}
