/**
 * The relay's holds in the `orders` container (partition key `/orderId`): markers (`outbox-hold:<orderId>`) by
 * point reads and writes under their ETags, the stored events behind a hold by one partition query (the applied entry
 * records above a cursor, by sequence: `/sequence/?` is in the indexing policy), and the cross-partition listing and
 * count that the timer, the CLI and the gauges read. A lost condition is an outcome; a store failure a `StoreError`.
 */
import type { Container, ItemDefinition } from '@azure/cosmos';
import {
  outboxHoldId,
  withoutSystemProperties,
  type HoldWrite,
  type OutboxDiscardRecord,
  type OutboxHold,
  type OutboxHoldStore,
  type Stored,
} from '../core/index.js';
import { EntryStatus, storedEvent, type StoredEvent } from '../core/documents/entryRecord.js';
import { describeCosmosFailure, toStoreError } from './cosmosOrderStore.js';

/** The applied entry records of one order in a range of sequences, ascending. */
const STORED_EVENTS =
  'FROM c WHERE c.docType = @entry AND c.status = @applied AND c.sequence > @after AND c.sequence <= @through ' +
  'ORDER BY c.sequence';

/** {@link OutboxHoldStore} over the `orders` container. */
export class CosmosOutboxHoldStore implements OutboxHoldStore {
  constructor(private readonly container: Container) {}

  async read(orderId: string): Promise<Stored<OutboxHold> | undefined> {
    try {
      const { resource, etag } = await this.container
        .item(outboxHoldId(orderId), orderId)
        .read<OutboxHold & ItemDefinition>();
      if (resource === undefined) return undefined;
      return { doc: withoutSystemProperties(resource), etag: etag ?? resource._etag ?? '' };
    } catch (error) {
      if (describeCosmosFailure(error).status === 404) return undefined;
      throw toStoreError(error, 'read', `the outbox hold of order ${orderId}`);
    }
  }

  async write(marker: OutboxHold, etag: string | undefined): Promise<HoldWrite> {
    try {
      const response =
        etag === undefined
          ? await this.container.items.create(marker)
          : await this.container
              .item(marker.id, marker.orderId)
              .replace(marker, { accessCondition: { type: 'IfMatch', condition: etag } });
      return { kind: 'written', etag: response.etag ?? '' };
    } catch (error) {
      if (isLost(error)) return { kind: 'lost' };
      throw toStoreError(error, 'commit', `the outbox hold of order ${marker.orderId}`);
    }
  }

  async end(orderId: string, etag: string): Promise<HoldWrite> {
    try {
      await this.container
        .item(outboxHoldId(orderId), orderId)
        .delete({ accessCondition: { type: 'IfMatch', condition: etag } });
      return { kind: 'written', etag: '' };
    } catch (error) {
      if (isLost(error)) return { kind: 'lost' };
      throw toStoreError(error, 'commit', `the outbox hold of order ${orderId}`);
    }
  }

  async storedEvents(orderId: string, after: number, through: number, max: number): Promise<StoredEvent[]> {
    const query = `SELECT TOP ${Math.trunc(max)} * ${STORED_EVENTS}`;
    const parameters = [
      { name: '@entry', value: 'entry' },
      { name: '@applied', value: EntryStatus.Applied },
      { name: '@after', value: after },
      { name: '@through', value: through },
    ];
    try {
      const { resources } = await this.container.items
        .query<StoredEvent & ItemDefinition>({ query, parameters }, { partitionKey: orderId })
        .fetchAll();
      return resources.map(storedEvent);
    } catch (error) {
      throw toStoreError(error, 'read', `the stored events of order ${orderId}`);
    }
  }

  async list(filter: { orderId?: string } = {}): Promise<Stored<OutboxHold>[]> {
    try {
      const { resources } = await this.container.items
        .query<OutboxHold & ItemDefinition>(
          { query: "SELECT * FROM c WHERE c.docType = 'outbox-hold'" },
          { maxItemCount: 1000, ...(filter.orderId !== undefined && { partitionKey: filter.orderId }) },
        )
        .fetchAll();
      return resources
        .map((r) => ({ doc: withoutSystemProperties<OutboxHold>(r), etag: r._etag ?? '' }))
        .sort((a, b) => (a.doc.orderId < b.doc.orderId ? -1 : a.doc.orderId > b.doc.orderId ? 1 : 0));
    } catch (error) {
      throw toStoreError(error, 'read', 'outbox holds');
    }
  }

  async recordDiscard(record: OutboxDiscardRecord): Promise<void> {
    try {
      await this.container.items.create(record);
    } catch (error) {
      throw toStoreError(error, 'commit', `the discard record ${record.id} of order ${record.orderId}`);
    }
  }

  /** How many orders are on hold. */
  async count(): Promise<number> {
    try {
      const { resources } = await this.container.items
        .query<number>("SELECT VALUE COUNT(1) FROM c WHERE c.docType = 'outbox-hold'")
        .fetchAll();
      return resources[0] ?? 0;
    } catch (error) {
      throw toStoreError(error, 'read', 'outbox holds');
    }
  }
}

/** A conditional write that lost: the marker to create exists (409), or the one named changed (412) or is gone (404). */
function isLost(error: unknown): boolean {
  const { status } = describeCosmosFailure(error);
  return status === 409 || status === 412 || status === 404;
}
