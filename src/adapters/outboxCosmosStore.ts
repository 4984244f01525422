/**
 * The outbox's store port on the Cosmos DB `orders` container: partition-scoped queries for one order's open
 * records, cross-partition queries for the sweep, the counts and the operator's listing, and ETag-conditional
 * replaces for the two phases.
 */
import type { Container, ItemDefinition, SqlQuerySpec } from '@azure/cosmos';
import type { OutboxCounts, OutboxDispatchRecord, OutboxStatus, OutboxStore, OutboxSummary, Stored } from '../core/index.js';
import { describeCosmosFailure, toStoreError } from './cosmosErrors.js';

/** Filter of {@link CosmosOutboxStore.list}. */
export interface OutboxListFilter {
  /** Only this order (one partition). @default every order */
  orderId?: string;
  /** Only this status. @default every status */
  status?: OutboxStatus;
  /** At most this many records. @default 1000 */
  limit?: number;
}

const OPEN = "c.docType = 'outbox' AND c.status IN ('pending', 'in-progress', 'failed')";

/**
 * {@link OutboxStore} over the `orders` container (partition key `/orderId`). The sweep's query sorts on one
 * field only (`orderId`; sequences are sorted here): ordering on two fields needs a composite index, which the
 * container's default indexing policy does not have.
 *
 * Every query costs two requests: `@azure/cosmos` 4.x asks the gateway for a query plan alongside any item query,
 * even one scoped to a partition, and has no option to skip it (`readAll` is a query too). So the dispatcher's
 * fast path claims the records the processor hands over without {@link CosmosOutboxStore.openRecords}.
 */
export class CosmosOutboxStore implements OutboxStore {
  constructor(private readonly container: Container) {}

  async openRecords(orderId: string): Promise<Stored<OutboxDispatchRecord>[]> {
    const rows = await this.query<OutboxDispatchRecord & ItemDefinition>({ query: `SELECT * FROM c WHERE ${OPEN}` }, orderId, `open outbox records of order ${orderId}`);
    return rows.map((row) => ({ doc: withoutSystemProperties(row), etag: row._etag ?? '' })).sort((a, b) => a.doc.sequence - b.doc.sequence);
  }

  async replace(record: OutboxDispatchRecord, etag: string): Promise<string | undefined> {
    try {
      const response = await this.container.item(record.id, record.orderId).replace(record, { accessCondition: { type: 'IfMatch', condition: etag } });
      return response.etag ?? (response.resource as ItemDefinition | undefined)?._etag ?? '';
    } catch (error) {
      const { status } = describeCosmosFailure(error);
      if (status === 412 || status === 404) return undefined;
      throw toStoreError(error, 'commit', `outbox record ${record.id} in order ${record.orderId}`);
    }
  }

  async openSummaries(limit: number): Promise<OutboxSummary[]> {
    const rows = await this.query<OutboxSummary>(
      {
        query: `SELECT TOP ${top(limit)} c.id, c.orderId, c.entryId, c.sequence, c.status, c.attempts, c.leaseUntil, c.nextAttemptAt FROM c WHERE ${OPEN} ORDER BY c.orderId`,
      },
      undefined,
      'open outbox records',
    );
    return rows.sort((a, b) => (a.orderId < b.orderId ? -1 : a.orderId > b.orderId ? 1 : a.sequence - b.sequence));
  }

  async countOpen(): Promise<OutboxCounts> {
    const count = async (status: OutboxStatus) => {
      const [n] = await this.query<number>(
        { query: "SELECT VALUE COUNT(1) FROM c WHERE c.docType = 'outbox' AND c.status = @status", parameters: [{ name: '@status', value: status }] },
        undefined,
        `${status} outbox records`,
      );
      return n ?? 0;
    };
    const [pending, inProgress, failed] = await Promise.all([count('pending'), count('in-progress'), count('failed')]);
    return { pending, inProgress, failed };
  }

  /** Outbox records for operators, by order then sequence. */
  async list(filter: OutboxListFilter = {}): Promise<OutboxDispatchRecord[]> {
    const conditions = ["c.docType = 'outbox'"];
    const parameters: { name: string; value: string }[] = [];
    if (filter.status !== undefined) {
      conditions.push('c.status = @status');
      parameters.push({ name: '@status', value: filter.status });
    }
    const rows = await this.query<OutboxDispatchRecord & ItemDefinition>(
      { query: `SELECT TOP ${top(filter.limit ?? 1000)} * FROM c WHERE ${conditions.join(' AND ')} ORDER BY c.orderId`, parameters },
      filter.orderId,
      'outbox records',
    );
    return rows.map(withoutSystemProperties).sort((a, b) => (a.orderId < b.orderId ? -1 : a.orderId > b.orderId ? 1 : a.sequence - b.sequence));
  }

  private async query<T>(spec: SqlQuerySpec, partitionKey: string | undefined, what: string): Promise<T[]> {
    try {
      // A large page size: the SDK's ORDER BY pipeline otherwise pages by 10, and a sweep costs dozens of requests.
      const options = { maxItemCount: 1000, ...(partitionKey === undefined ? {} : { partitionKey }) };
      const iterator = this.container.items.query<T>(spec, options);
      const { resources } = await iterator.fetchAll();
      return resources;
    } catch (error) {
      throw toStoreError(error, 'read', what);
    }
  }
}

/** A `TOP` count written into the query text (a literal keeps the query plan simple). */
function top(limit: number): number {
  return Math.max(1, Math.floor(limit));
}

/** Cosmos adds `_rid`, `_self`, `_etag`, `_ts`, `_attachments`; the documents have no `_` fields of their own. */
function withoutSystemProperties<T extends object>(resource: T & ItemDefinition): T {
  const doc: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(resource)) if (!key.startsWith('_')) doc[key] = value;
  return doc as T;
}
