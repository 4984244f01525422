import type { Container } from '@azure/cosmos';
import type { ServiceBusClient } from '@azure/service-bus';
import { type OrderView } from '../../src/core/index.js';
import { compareWithExpectation, orderDifferences } from '@ledger-convoy/cli';
import type { Expectation } from '@ledger-convoy/cli';
import type { HostPool } from './hostPool.js';
import { readBacklog, readDeadLetters, readEvents, readOrders, readRows, type Observation } from './observe.js';

/** Options of {@link settle}. */
export interface SettleOptions {
  expectation: Expectation;
  client: ServiceBusClient;
  container: Container;
  pool: HostPool;
  timeoutMs: number;
  /**
   * Give up early once the queues are empty and nothing changed for this long: longer than a killed host's relay
   * leases take to expire (60 s) and be taken by another host (acquire interval 13 s), with a retried batch's wait.
   * @default 150000
   */
  quietMs?: number;
  /**
   * What is left for the relay's webhook once the orders match and the queues are empty: holds not yet released by
   * the hold timer, and records the webhook has not accepted. Settling waits for both to reach 0 (no operator).
   */
  relayLeft?: () => Promise<{ holds: number; unaccepted: number }>;
  log?: (line: string) => void;
}

/**
 * Waits until the system shows the expected state — every order as the oracle says, the expected dead letters, one
 * `order-events` message per valid entry — or stops changing, or the timeout passes; then takes the observation
 * the invariants are checked on.
 */
export async function settle(options: SettleOptions): Promise<{ observation: Observation; waitedMs: number }> {
  const { expectation, client, pool } = options;
  const started = Date.now();
  const quietMs = options.quietMs ?? 150_000;
  const expectedEvents = expectation.orders.reduce((n, o) => n + o.lastSequence, 0);
  const orders = new Map<string, OrderView | undefined>();
  let lastSnapshot = '';
  let lastChange = started;
  let lastLog = 0;
  for (;;) {
    const pending = expectation.orders.filter((o) => {
      const view = orders.get(o.orderId);
      return view === undefined || orderDifferences(o, view).length > 0;
    });
    const baseUrl = await pool.liveBaseUrl();
    const ok = await attempt(async () => {
      await readOrders(
        baseUrl,
        pending.map((o) => o.orderId),
        orders,
      );
      const { deadLetters } = await readDeadLetters(client);
      const backlog = await readBacklog(client);
      const comparison = compareWithExpectation(expectation, orders, deadLetters);
      const left = comparison.ok && backlog === 0 ? await options.relayLeft?.() : undefined;
      // Peeking every event costs a round trip per 250: only once the orders are done.
      const events = comparison.ok && backlog === 0 ? await readEvents(client, expectedEvents * 2 + 100) : [];
      const distinctEvents = new Set(events.map((e) => e.key)).size;
      const now = Date.now();
      const snapshot = JSON.stringify([
        comparison.orders.matched,
        comparison.deadLetters.byReason,
        distinctEvents,
        backlog,
        left,
      ]);
      if (snapshot !== lastSnapshot) {
        lastSnapshot = snapshot;
        lastChange = now;
      }
      if (now - lastLog > 10_000) {
        lastLog = now;
        const relay =
          left === undefined
            ? ''
            : `, ${left.holds} hold(s), ${left.unaccepted} record(s) not yet accepted by the webhook`;
        options.log?.(
          `settling: ${comparison.orders.matched}/${expectation.orders.length} orders, ${distinctEvents}/${expectedEvents} events, backlog ${backlog}${relay}`,
        );
      }
      const relayDone = left === undefined || (left.holds === 0 && left.unaccepted === 0);
      if (comparison.ok && distinctEvents >= expectedEvents && backlog === 0 && relayDone) return true;
      return backlog === 0 && now - lastChange >= quietMs;
    });
    if (ok || Date.now() - started >= options.timeoutMs) break;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  const waitedMs = Date.now() - started;
  // The final look: every order again (a matched one must still match), everything else once.
  const baseUrl = await pool.liveBaseUrl();
  const observation = await retrying(async () => {
    const finalOrders = new Map<string, OrderView | undefined>();
    await readOrders(
      baseUrl,
      expectation.orders.map((o) => o.orderId),
      finalOrders,
    );
    const { deadLetters, eventDeadLetters } = await readDeadLetters(client);
    return {
      orders: finalOrders,
      deadLetters,
      eventDeadLetters,
      events: await readEvents(client, expectedEvents * 2 + 100),
      rows: await readRows(options.container),
      backlog: await readBacklog(client),
    };
  });
  return { observation, waitedMs };
}

/** One look; a failed look (a host restarting) counts as "not yet". */
async function attempt(look: () => Promise<boolean>): Promise<boolean> {
  try {
    return await look();
  } catch {
    return false;
  }
}

/** A saturated stack answers 503 for a while (its store reads time out): keep asking for about a minute. */
async function retrying<T>(work: () => Promise<T>, attempts = 20): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await work();
    } catch (error) {
      if (i >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 3_000));
    }
  }
}
