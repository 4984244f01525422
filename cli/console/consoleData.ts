import type { ItemDefinition } from '@azure/cosmos';
import { CosmosOrderStore } from '../../src/adapters/cosmosOrderStore.js';
import type { OrderDocument } from '../../src/core/documents/orderDocument.js';
import type { HoldDiscardReport } from '../../src/core/outbox/holdDiscard.js';
import type { HoldReleaseReport } from '../../src/core/outbox/holdRelease.js';
import { normaliseBody, type OrderView, type RejectedRecord } from '../../src/core/index.js';
import { discardOutbox, listOutbox, retryOutbox, type OutboxListing } from '../commands/outboxRetry.js';
import { withOrdersContainer } from '../cosmos.js';
import type { DeadLetterRow } from '../dlq/deadLetterRow.js';
import { runDlqList, type DlqListing } from '../dlq/list.js';
import { runDlqPurge } from '../dlq/purge.js';
import { runDlqResubmit, type ResubmitReport } from '../dlq/resubmit.js';
import { runResubmitRejected, type ResubmittedRejected } from '../dlq/resubmitRejected.js';
import { runDlqShow } from '../dlq/show.js';
import { CliError } from '../errors.js';
import { FunctionApi } from '../httpApi.js';
import { runSessions, type SessionsReport } from '../sessions.js';
import type { ConsoleTarget } from './consoleTarget.js';

/**
 * How long a console action waits for a dead letter another receiver holds locked: shorter than the CLI's default,
 * since a browser is waiting; the page then says which ones did not come.
 */
export const CONSOLE_RECEIVE_TIMEOUT_MS = 30_000;

/** Filters of the dead-letter list. */
export interface DeadLetterFilter {
  reason?: string;
  orderId?: string;
}

/** One applied entry of an order's history (its `applied` document). */
export interface AppliedRow {
  sequence: number;
  entryId: string;
  appliedAt: string;
}

/** An order that waits: entries parked behind a gap, or rejected ones (rule 11). */
export interface WaitingOrder {
  orderId: string;
  status: string;
  lastSequence: number;
  parked: number[];
  /** When the oldest parked entry was parked: the gap's age (`GapTooOld`). */
  oldestParkedAt: string | undefined;
  rejected: { sequence: number; reason: string }[];
}

/** Most waiting orders the overview lists. */
export const WAITING_ORDERS_SHOWN = 50;

/** What the order page shows. */
export interface OrderDetail {
  view: OrderView | undefined;
  /** The rejected records in full (with the entry as parked), read from Cosmos DB; undefined when unreadable. */
  rejected: RejectedRecord[] | undefined;
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
  constructor(private readonly target: ConsoleTarget) {}

  /** `convoy sessions`: per queue counts and the sessions of `orders`, with their orders' parked and rejected. */
  sessions(maxOrders = 50): Promise<SessionsReport> {
    return runSessions({ settings: this.target.settings, admin: this.target.admin, maxOrders });
  }

  /**
   * Orders with parked or rejected entries, oldest gap first: one cross-partition query over the order documents,
   * like the gap monitor's scan (an idle order has no session to show it).
   */
  waitingOrders(): Promise<WaitingOrder[]> {
    return withOrdersContainer(this.target.settings.app, async (container) => {
      const { resources } = await container.items
        .query<OrderDocument>({ query: "SELECT * FROM c WHERE c.docType = 'order' AND (ARRAY_LENGTH(c.parked) > 0 OR ARRAY_LENGTH(c.rejected) > 0)" })
        .fetchAll();
      return resources
        .map((d) => ({
          orderId: d.orderId,
          status: d.state.status,
          lastSequence: d.lastSequence,
          parked: d.parked.map((p) => p.sequence),
          oldestParkedAt: d.parked.map((p) => p.parkedAt).sort()[0],
          rejected: d.rejected.map((r) => ({ sequence: r.sequence, reason: r.reason })),
        }))
        .sort((a, b) => (a.oldestParkedAt ?? '~').localeCompare(b.oldestParkedAt ?? '~') || a.orderId.localeCompare(b.orderId))
        .slice(0, WAITING_ORDERS_SHOWN);
    });
  }

  /** The backlog the charts sample: active messages of `orders`. */
  async backlog(): Promise<number> {
    const report = await runSessions({ settings: this.target.settings, admin: this.target.admin, maxOrders: 0 });
    const orders = report.queues.find((q) => q.name === 'orders');
    if (!orders) throw new CliError('ServiceBus', 'The namespace has no orders queue.');
    return orders.active;
  }

  /** `convoy dlq list`, narrowed by reason or order. */
  async deadLetters(queue: string, filter: DeadLetterFilter = {}): Promise<DlqListing> {
    const listing = await runDlqList({ settings: this.target.settings, queue, orders: filter.orderId ? [filter.orderId] : [] });
    const keep = (row: DeadLetterRow) => (!filter.reason || row.reason === filter.reason) && (!filter.orderId || row.sessionId === filter.orderId);
    return {
      ...listing,
      deadLetters: listing.deadLetters.filter(keep),
      rejected: listing.rejected.filter((r) => !filter.orderId || r.orderId === filter.orderId),
    };
  }

  /** `convoy dlq show <sequence number>`. */
  async deadLetter(queue: string, sequenceNumber: string): Promise<Record<string, unknown>> {
    const found = await runDlqShow({ settings: this.target.settings, queue, id: sequenceNumber });
    const detail = found.find((d) => d.sequenceNumber === sequenceNumber);
    if (!detail) throw new CliError('NotFound', `No dead letter on ${queue} has the sequence number ${sequenceNumber}.`);
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
    const before = await runDlqList({ settings: this.target.settings, queue });
    const purged = await runDlqPurge({ settings: this.target.settings, queue, yes: true, timeoutMs: CONSOLE_RECEIVE_TIMEOUT_MS });
    const orderIds = [...new Set(before.deadLetters.map((d) => d.sessionId).filter(Boolean))].slice(0, 20);
    const api = new FunctionApi(this.target.settings);
    const orders = await Promise.all(
      orderIds.map(async (orderId) => {
        try {
          return { orderId, view: await api.getOrder(orderId), error: undefined };
        } catch (error) {
          // The purge is done either way: say why this order cannot be shown rather than fail the whole answer.
          return { orderId, view: undefined, error: error instanceof Error ? error.message : String(error) };
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
      this.deadLetters('orders', { orderId }).then((l) => l.deadLetters),
    ]);
    let rejected: RejectedRecord[] | undefined;
    let applied: AppliedRow[] | undefined;
    let storeError: string | undefined;
    try {
      await withOrdersContainer(this.target.settings.app, async (container) => {
        const order = await new CosmosOrderStore(container).readOrder(orderId);
        rejected = order?.doc.rejected ?? [];
        const { resources } = await container.items
          .query<AppliedRow & ItemDefinition>(
            { query: "SELECT c.sequence, c.entryId, c.appliedAt FROM c WHERE c.orderId = @o AND c.docType = 'applied'", parameters: [{ name: '@o', value: orderId }] },
            { partitionKey: orderId },
          )
          .fetchAll();
        applied = resources.map((r) => ({ sequence: r.sequence, entryId: r.entryId, appliedAt: r.appliedAt })).sort((a, b) => a.sequence - b.sequence);
      });
    } catch (error) {
      storeError = error instanceof Error ? error.message : String(error);
    }
    return { view, rejected, applied, storeError, deadLetters };
  }

  /** `convoy outbox list`: the relay's lag per lease and the holds. */
  outbox(filter: { orderId?: string }): Promise<OutboxListing> {
    return withOrdersContainer(this.target.settings.app, (container) => listOutbox(container, filter));
  }

  /** `convoy outbox retry <orderId>`: releases the order's hold now (its records go to the held targets, in order). */
  releaseHold(orderId: string): Promise<HoldReleaseReport> {
    return withOrdersContainer(this.target.settings.app, (container) => retryOutbox(this.target.settings, container, orderId));
  }

  /** `convoy outbox discard <orderId> --reason`: drops the order's held records, with an audit record. */
  discardHold(orderId: string, reason: string): Promise<HoldDiscardReport> {
    return withOrdersContainer(this.target.settings.app, (container) => discardOutbox(container, orderId, reason, 'console'));
  }
}

/** What a purge did, and where the orders of the purged dead letters stand. */
export interface PurgeOutcome {
  purged: number;
  /** `view` undefined: nothing of the order exists (404), or `error` says why it could not be read. */
  orders: { orderId: string; view: OrderView | undefined; error: string | undefined }[];
}

/** A corrected body from the page's editor: JSON, else nothing is sent. */
export function parseCorrection(text: string): unknown {
  const parsed = normaliseBody(text);
  if (!parsed.ok) throw new CliError('InvalidOption', 'The corrected body is not JSON; nothing was sent.', 'A corrected entry is a JSON object such as the ledger entries in the README.');
  return parsed.value;
}
