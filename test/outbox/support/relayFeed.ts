import { ChangeFeedStartFrom, StatusCodes, type Container } from '@azure/cosmos';
import { type OutboxRelay, type RelayReport } from '../../../src/core/index.js';

/** Hang guard: far more pages than any test writes. */
const MAX_PAGES = 10_000;

/**
 * Hands the whole change feed of `container`, from the beginning, page by page to `relay` — what the Cosmos DB
 * trigger does, without leases — and sums the reports.
 */
export async function relayWholeFeed(
  container: Container,
  relay: OutboxRelay,
  maxItemCount = 100,
): Promise<RelayReport> {
  const total: RelayReport = { orders: 0, delivered: 0, appended: 0, held: [] };
  const iterator = container.items.getChangeFeedIterator({
    changeFeedStartFrom: ChangeFeedStartFrom.Beginning(),
    maxItemCount,
  });
  for (let i = 0; i < MAX_PAGES; i++) {
    const page = await iterator.readNext();
    if (page.statusCode === StatusCodes.NotModified) return total;
    const report = await relay.relay(page.result);
    total.orders += report.orders;
    total.delivered += report.delivered;
    total.appended += report.appended;
    total.held.push(...report.held);
  }
  throw new Error(`the change feed did not answer 304 within ${MAX_PAGES} pages`);
}
