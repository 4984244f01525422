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
import { queryAll, readStored, toStoreError, writeUnlessLost } from './cosmosOrderStore.js';

/** The applied entry records of one order in a range of sequences, ascending. */
const STORED_EVENTS =
  `FROM c WHERE c.docType = 'entry' AND c.status = '${EntryStatus.Applied}' ` +
  'AND c.sequence > @after AND c.sequence <= @through ORDER BY c.sequence';

/** {@link OutboxHoldStore} over the `orders` container. */
export class CosmosOutboxHoldStore implements OutboxHoldStore {
  constructor(private readonly container: Container) {}

  read(orderId: string): Promise<Stored<OutboxHold> | undefined> {
    return readStored(this.container, outboxHoldId(orderId), orderId, `the outbox hold of order ${orderId}`);
  }

  async write(marker: OutboxHold, etag: string | undefined): Promise<HoldWrite> {
    const written = await writeUnlessLost(`the outbox hold of order ${marker.orderId}`, () =>
      etag === undefined
        ? this.container.items.create(marker)
        : this.container
            .item(marker.id, marker.orderId)
            .replace(marker, { accessCondition: { type: 'IfMatch', condition: etag } }),
    );
    return written === 'lost' ? { kind: 'lost' } : { kind: 'written', etag: written.etag ?? '' };
  }

  async end(orderId: string, etag: string): Promise<HoldWrite> {
    const ended = await writeUnlessLost(`the outbox hold of order ${orderId}`, () =>
      this.container
        .item(outboxHoldId(orderId), orderId)
        .delete({ accessCondition: { type: 'IfMatch', condition: etag } }),
    );
    return ended === 'lost' ? { kind: 'lost' } : { kind: 'written', etag: '' };
  }

  async storedEvents(orderId: string, after: number, through: number, max: number): Promise<StoredEvent[]> {
    const query = `SELECT TOP ${Math.trunc(max)} * ${STORED_EVENTS}`;
    const parameters = [
      { name: '@after', value: after },
      { name: '@through', value: through },
    ];
    const found = await queryAll<StoredEvent & ItemDefinition>(
      this.container,
      { query, parameters },
      `the stored events of order ${orderId}`,
      { partitionKey: orderId },
    );
    return found.map(storedEvent);
  }

  async list(filter: { orderId?: string } = {}): Promise<Stored<OutboxHold>[]> {
    const found = await queryAll<OutboxHold & ItemDefinition>(
      this.container,
      "SELECT * FROM c WHERE c.docType = 'outbox-hold'",
      'outbox holds',
      { maxItemCount: 1000, ...(filter.orderId !== undefined && { partitionKey: filter.orderId }) },
    );
    return found
      .map((r) => ({ doc: withoutSystemProperties<OutboxHold>(r), etag: r._etag ?? '' }))
      .sort((a, b) => (a.doc.orderId < b.doc.orderId ? -1 : a.doc.orderId > b.doc.orderId ? 1 : 0));
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
    const query = "SELECT VALUE COUNT(1) FROM c WHERE c.docType = 'outbox-hold'";
    return (await queryAll<number>(this.container, query, 'outbox holds'))[0] ?? 0;
  }
}
