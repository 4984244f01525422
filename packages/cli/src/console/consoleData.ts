import type { ItemDefinition } from '@azure/cosmos';
import { CosmosOrderStore } from 'ledger-convoy/adapters/cosmosOrderStore';
import type { HoldDiscardReport } from 'ledger-convoy/core';
import type { HoldReleaseReport } from 'ledger-convoy/core';
import {
  normaliseBody,
  rejectedDetails,
  type OrderView,
  type RejectedDetails,
  type RejectedEntryRecord,
  type RejectedRecord,
} from 'ledger-convoy/core';
import { discardOutbox, listOutbox, retryOutbox, type OutboxListing } from '../commands/outboxRetry.js';
import { withOrdersContainer } from '../cosmos.js';
import { QueueName } from 'ledger-convoy/core';
import { peekAll, withServiceBus } from '../serviceBus.js';
import { deadLetterRow, type DeadLetterRow } from '../dlq/deadLetterRow.js';
import type { DlqListing, RejectedRow } from '../dlq/list.js';
import { runDlqPurge } from '../dlq/purge.js';
import { runDlqResubmit, type ResubmitReport } from '../dlq/resubmit.js';
import { runResubmitRejected, type ResubmittedRejected } from '../dlq/resubmitRejected.js';
import { runDlqShow } from '../dlq/show.js';
import { CliError, errorText } from '../errors.js';
import { FunctionApi } from '../httpApi.js';
import { runSessions, type SessionsReport } from '../sessions.js';
import type { ConsoleTarget } from './consoleTarget.js';
import { CosmosOrderListing } from './cosmosOrderListing.js';
import { OrderTab, type OrderPage, type WaitingCounts } from './orderListing.js';

/**
 * How long a console action waits for a dead letter another receiver holds locked: shorter than the CLI's default,
 * since a browser is waiting; the page then says which ones did not come.
 */
const CONSOLE_RECEIVE_TIMEOUT_MS = 30_000;

/**
 * Most dead letters a page peeks on each refresh: a large dead-letter queue is not read whole every few seconds;
 * the page says when there may be more (`convoy dlq list` reads them all).
 */
const DEAD_LETTER_PEEK_LIMIT = 200;
/** Most orders with rejected entries the dead-letter page lists. */
const REJECTED_SHOWN = 50;

/** What the dead-letter page shows. */
export interface DeadLetterView extends DlqListing {
  /** How many were peeked (before the filter), and at most how many a view peeks. */
  peeked: number;
  peekLimit: number;
}

/** Filters of the dead-letter list. */
export interface DeadLetterFilter {
  reason?: string;
  orderId?: string;
}

/** One applied entry of an order's history (its `applied` document). */
interface AppliedRow {
  sequence: number;
  entryId: string;
  appliedAt: string;
}

/** A rejected entry (rule 11) as the order page shows it: its record, and its details (the entry as parked, why). */
type RejectedDetailRow = Pick<RejectedRecord, 'sequence' | 'entryId' | 'rejectedAt'> & {
  details: RejectedDetails | undefined;
};

/** What the order page shows. */
export interface OrderDetail {
  view: OrderView | undefined;
  /** The rejected records with their details, read from Cosmos DB; undefined when unreadable. */
  rejected: RejectedDetailRow[] | undefined;
  applied: AppliedRow[] | undefined;
  /** Why the Cosmos DB part could not be read. */
  storeError: string | undefined;
  deadLetters: DeadLetterRow[];
}

/**
 * Every read and change the console makes, each through the CLI's own module (`convoy sessions`, `convoy dlq …`,
 * `convoy outbox …`), so there is one implementation of rule 10. Errors are CLI errors (or the SDKs'), for the
 * page to show.
 */
export class ConsoleData {
  constructor(
    private readonly target: ConsoleTarget,
    /** Most dead letters a view peeks. @default {@link DEAD_LETTER_PEEK_LIMIT} */
    private readonly peekLimit = DEAD_LETTER_PEEK_LIMIT,
  ) {}

  /** `convoy sessions`: per queue counts and the sessions of `orders`, with their orders' parked and rejected. */
  sessions(maxOrders = 50): Promise<SessionsReport> {
    return runSessions({ settings: this.target.settings, admin: this.target.admin, maxOrders });
  }

  /** One page of an Orders list (see {@link OrderListing}). */
  orders(tab: OrderTab, continuation: string | undefined, size: number): Promise<OrderPage> {
    return withOrdersContainer(this.target.settings.app, (container) =>
      new CosmosOrderListing(container).page(tab, { size, continuation }),
    );
  }

  /** How many orders have parked or rejected entries, or an outbox on hold: the overview's links to the lists. */
  waitingCounts(): Promise<WaitingCounts> {
    return withOrdersContainer(this.target.settings.app, (container) => new CosmosOrderListing(container).counts());
  }

  /** The backlog the charts sample: active messages of `orders`. */
  async backlog(): Promise<number> {
    const report = await runSessions({ settings: this.target.settings, admin: this.target.admin, maxOrders: 0 });
    const orders = report.queues.find((q) => q.name === 'orders');
    if (!orders) throw new CliError('ServiceBus', 'The namespace has no orders queue.');
    return orders.active;
  }

  /**
   * The first `peekLimit` dead letters of `queue` (peeked: nothing changes), narrowed by reason or order in memory,
   * and the orders' rejected entries (rule 11) from one page of the rejected list — never a read per order.
   */
  async deadLetters(queue: string, filter: DeadLetterFilter = {}): Promise<DeadLetterView> {
    const peeked = (
      await withServiceBus(this.target.settings, (client) => peekAll(client, queue, 'deadLetter', this.peekLimit))
    ).map(deadLetterRow);
    const keep = (row: DeadLetterRow) =>
      (!filter.reason || row.reason === filter.reason) && (!filter.orderId || row.sessionId === filter.orderId);
    let rejected: RejectedRow[] = [];
    let ordersUnavailable: string | undefined;
    if (queue === QueueName.Orders) {
      try {
        const page = await this.orders(OrderTab.Rejected, undefined, REJECTED_SHOWN);
        rejected = page.orders
          .filter((o) => !filter.orderId || o.orderId === filter.orderId)
          .flatMap((o) =>
            o.rejected.map((r) => ({
              orderId: o.orderId,
              sequence: r.sequence,
              entryId: r.entryId,
              reason: r.reason as RejectedRow['reason'],
            })),
          );
      } catch (error) {
        ordersUnavailable = errorText(error);
      }
    }
    return {
      queue,
      deadLetters: peeked.filter(keep),
      peeked: peeked.length,
      peekLimit: this.peekLimit,
      rejected,
      ordersUnavailable,
    };
  }

  /** `convoy dlq show <sequence number>`. */
  async deadLetter(queue: string, sequenceNumber: string): Promise<Record<string, unknown>> {
    const found = await runDlqShow({ settings: this.target.settings, queue, id: sequenceNumber });
    const detail = found.find((d) => d.sequenceNumber === sequenceNumber);
    if (!detail)
      throw new CliError('NotFound', `No dead letter on ${queue} has the sequence number ${sequenceNumber}.`);
    return detail;
  }

  /** `convoy dlq resubmit <sequence number> [--body]`: `bodyText` is the corrected body, else it goes back as is. */
  resubmit(queue: string, sequenceNumber: string, bodyText?: string): Promise<ResubmitReport> {
    const corrected = bodyText === undefined ? undefined : parseCorrection(bodyText);
    return runDlqResubmit({
      settings: this.target.settings,
      queue,
      ids: [sequenceNumber],
      correct: corrected === undefined ? undefined : () => corrected,
      timeoutMs: CONSOLE_RECEIVE_TIMEOUT_MS,
    });
  }

  /**
   * `convoy dlq purge --yes`, then what became of the orders whose dead letters went (at most 20): each still waits
   * at the purged sequence (rule 10) until a corrected entry comes in a new ledger.
   */
  async purge(queue: string): Promise<PurgeOutcome> {
    const before = (
      await withServiceBus(this.target.settings, (client) => peekAll(client, queue, 'deadLetter', this.peekLimit))
    ).map(deadLetterRow);
    const purged = await runDlqPurge({
      settings: this.target.settings,
      queue,
      yes: true,
      timeoutMs: CONSOLE_RECEIVE_TIMEOUT_MS,
    });
    const orderIds = [...new Set(before.map((d) => d.sessionId).filter(Boolean))].slice(0, 20);
    const api = new FunctionApi(this.target.settings);
    const orders = await Promise.all(
      orderIds.map(async (orderId) => {
        try {
          return { orderId, view: await api.getOrder(orderId), error: undefined };
        } catch (error) {
          // The purge is done either way: say why this order cannot be shown rather than fail the whole answer.
          return { orderId, view: undefined, error: errorText(error) };
        }
      }),
    );
    return { purged, orders };
  }

  /** `convoy dlq resubmit --order <id> --sequence <n> --body`. */
  resubmitRejected(orderId: string, sequence: number, bodyText: string): Promise<ResubmittedRejected> {
    const corrected = parseCorrection(bodyText);
    return runResubmitRejected({ settings: this.target.settings, orderId, sequence, correct: () => corrected });
  }

  /** The order's view (`GET /api/orders/{id}`), its rejected records and applied history (Cosmos DB), its dead letters. */
  async order(orderId: string): Promise<OrderDetail> {
    const [view, deadLetters] = await Promise.all([
      new FunctionApi(this.target.settings).getOrder(orderId),
      withServiceBus(this.target.settings, (client) =>
        peekAll(client, QueueName.Orders, 'deadLetter', this.peekLimit),
      ).then((all) => all.map(deadLetterRow).filter((d) => d.sessionId === orderId)),
    ]);
    let rejected: RejectedDetailRow[] | undefined;
    let applied: AppliedRow[] | undefined;
    let storeError: string | undefined;
    try {
      await withOrdersContainer(this.target.settings.app, async (container) => {
        const order = await new CosmosOrderStore(container).readOrder(orderId);
        const records = order?.doc.rejected ?? [];
        // Their details: one query in the order's partition, of the rejected entries' records.
        const stored = new Map<string, RejectedEntryRecord>();
        if (records.length > 0) {
          const query = {
            query: "SELECT * FROM c WHERE c.orderId = @o AND c.docType = 'entry' AND c.status = 'rejected'",
            parameters: [{ name: '@o', value: orderId }],
          };
          const { resources } = await container.items
            .query<RejectedEntryRecord>(query, { partitionKey: orderId })
            .fetchAll();
          for (const doc of resources) stored.set(doc.entryId, doc);
        }
        rejected = records.map((r) => ({
          sequence: r.sequence,
          entryId: r.entryId,
          rejectedAt: r.rejectedAt,
          details: rejectedDetails(stored.get(r.entryId)),
        }));
        const { resources } = await container.items
          .query<AppliedRow & ItemDefinition>(
            {
              query:
                "SELECT c.sequence, c.entryId, c.committedAt AS appliedAt FROM c WHERE c.orderId = @o AND c.docType = 'entry' AND c.status = 'applied'",
              parameters: [{ name: '@o', value: orderId }],
            },
            { partitionKey: orderId },
          )
          .fetchAll();
        applied = resources
          .map((r) => ({ sequence: r.sequence, entryId: r.entryId, appliedAt: r.appliedAt }))
          .sort((a, b) => a.sequence - b.sequence);
      });
    } catch (error) {
      storeError = errorText(error);
    }
    return { view, rejected, applied, storeError, deadLetters };
  }

  /** `convoy outbox list`: the relay's lag per lease and the holds. */
  outbox(filter: { orderId?: string }): Promise<OutboxListing> {
    return withOrdersContainer(this.target.settings.app, (container) => listOutbox(container, filter));
  }

  /** `convoy outbox retry <orderId>`: releases the order's hold now (its records go to the held targets, in order). */
  releaseHold(orderId: string): Promise<HoldReleaseReport> {
    return withOrdersContainer(this.target.settings.app, (container) =>
      retryOutbox(this.target.settings, container, orderId),
    );
  }

  /** `convoy outbox discard <orderId> --reason`: drops the order's held records, with an audit record. */
  discardHold(orderId: string, reason: string): Promise<HoldDiscardReport> {
    return withOrdersContainer(this.target.settings.app, (container) =>
      discardOutbox(container, orderId, reason, 'console'),
    );
  }
}

/** What a purge did, and where the orders of the purged dead letters stand. */
export interface PurgeOutcome {
  purged: number;
  /** `view` undefined: nothing of the order exists (404), or `error` says why it could not be read. */
  orders: { orderId: string; view: OrderView | undefined; error: string | undefined }[];
}

/** A corrected body from the page's editor: JSON, else nothing is sent. */
function parseCorrection(text: string): unknown {
  const parsed = normaliseBody(text);
  if (!parsed.ok)
    throw new CliError(
      'InvalidOption',
      'The corrected body is not JSON; nothing was sent.',
      'A corrected entry is a JSON object such as the ledger entries in the README.',
    );
  return parsed.value;
}
