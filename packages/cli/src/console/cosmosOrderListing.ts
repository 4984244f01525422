import type { Container, SqlParameter } from '@azure/cosmos';
import type { OrderDocument, OutboxHold } from 'ledger-convoy/core';
import { CliError } from '../errors.js';
import { OrderTab, type OrderListing, type OrderPage, type OrderRow, type WaitingCounts } from './orderListing.js';

/** Where a page ends: the last orderId, or for `recent` the last change time and the orders seen at that time. */
type Position = { after: string } | { before: string; seen: string[] };

const ORDER = "c.docType = 'order'";
const WHERE: Record<Exclude<OrderTab, 'held' | 'recent'>, string> = {
  parked: `${ORDER} AND ARRAY_LENGTH(c.parked) > 0`,
  rejected: `${ORDER} AND ARRAY_LENGTH(c.rejected) > 0`,
};
const HELD = "c.docType = 'outbox-hold'";

/**
 * {@link OrderListing} on the orders container: cross-partition queries over the order documents (and the hold
 * markers), each a single-property ORDER BY (the default index serves it) with TOP, resumed after the previous
 * page's last key. `recent` orders by `updatedAt`; orders changed in the same millisecond are told apart by the ids
 * the continuation carries.
 */
export class CosmosOrderListing implements OrderListing {
  constructor(private readonly container: Container) {}

  async page(tab: OrderTab, options: { size: number; continuation?: string }): Promise<OrderPage> {
    const size = Math.max(1, Math.min(200, Math.trunc(options.size)));
    const position = options.continuation === undefined ? undefined : decode(options.continuation);
    const parameters: SqlParameter[] = [];
    let query: string;
    if (tab === OrderTab.Recent) {
      let where = ORDER;
      if (position && 'before' in position) {
        where += ' AND (c.updatedAt < @before OR (c.updatedAt = @before AND NOT ARRAY_CONTAINS(@seen, c.orderId)))';
        parameters.push({ name: '@before', value: position.before }, { name: '@seen', value: position.seen });
      }
      query = `SELECT TOP ${size + 1} * FROM c WHERE ${where} ORDER BY c.updatedAt DESC`;
    } else {
      let where = tab === OrderTab.Held ? HELD : WHERE[tab];
      if (position && 'after' in position) {
        where += ' AND c.orderId > @after';
        parameters.push({ name: '@after', value: position.after });
      }
      query = `SELECT TOP ${size + 1} * FROM c WHERE ${where} ORDER BY c.orderId`;
    }
    const { resources } = await this.container.items
      .query<OrderDocument | OutboxHold>({ query, parameters })
      .fetchAll();
    const rows = resources.slice(0, size).map(toRow);
    if (resources.length <= size) return { orders: rows, continuation: undefined };
    const last = rows.at(-1)!;
    if (tab !== OrderTab.Recent) return { orders: rows, continuation: encode({ after: last.orderId }) };
    const before = last.changedAt ?? '';
    const earlier = position && 'before' in position && position.before === before ? position.seen : [];
    const seen = [...earlier, ...rows.filter((r) => r.changedAt === before).map((r) => r.orderId)];
    return { orders: rows, continuation: encode({ before, seen }) };
  }

  async counts(): Promise<WaitingCounts> {
    const count = async (where: string) => {
      const { resources } = await this.container.items
        .query<number>(`SELECT VALUE COUNT(1) FROM c WHERE ${where}`)
        .fetchAll();
      return resources.reduce((a, b) => a + b, 0);
    };
    const [parked, rejected, held] = await Promise.all([count(WHERE.parked), count(WHERE.rejected), count(HELD)]);
    return { parked, rejected, held };
  }
}

function toRow(doc: OrderDocument | OutboxHold): OrderRow {
  if (doc.docType === 'outbox-hold') {
    const hold = doc;
    return {
      orderId: hold.orderId,
      status: undefined,
      lastSequence: undefined,
      parked: [],
      oldestParkedAt: undefined,
      rejected: [],
      heldTargets: [...hold.targets],
      changedAt: hold.since,
    };
  }
  return {
    orderId: doc.orderId,
    status: doc.state.status,
    lastSequence: doc.lastSequence,
    parked: doc.parked.map((p) => p.sequence),
    oldestParkedAt: doc.parked.map((p) => p.parkedAt).sort()[0],
    rejected: doc.rejected.map((r) => ({ sequence: r.sequence, entryId: r.entryId, reason: r.reason })),
    heldTargets: [],
    changedAt: doc.updatedAt,
  };
}

function encode(position: Position): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

function decode(token: string): Position {
  try {
    const value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Partial<{
      after: unknown;
      before: unknown;
      seen: unknown;
    }>;
    if (typeof value.after === 'string') return { after: value.after };
    if (typeof value.before === 'string' && Array.isArray(value.seen) && value.seen.every((s) => typeof s === 'string'))
      return { before: value.before, seen: value.seen as string[] };
  } catch {
    // Falls through to the refusal below.
  }
  throw new CliError(
    'InvalidOption',
    'This page link is not one the console made (its continuation does not parse).',
    'Open the list again from its first page.',
  );
}
