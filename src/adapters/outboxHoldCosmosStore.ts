/**
 * The relay's holds in the `orders` container (partition key `/orderId`, `id = outbox-hold:<orderId>`): point
 * reads, conditional creates, replaces and deletes under ETags, and the cross-partition listing and count that the
 * CLI and the gauges read.
 */
import type { Container, ItemDefinition } from '@azure/cosmos';
import { outboxHoldId, withoutSystemProperties, type OutboxHold, type OutboxHoldStore, type HoldWriteLost, type Stored } from '../core/index.js';
import { describeCosmosFailure, toStoreError } from './cosmosOrderStore.js';

/** {@link OutboxHoldStore} over the `orders` container. */
export class CosmosOutboxHoldStore implements OutboxHoldStore {
  constructor(private readonly container: Container) {}

  async read(orderId: string): Promise<Stored<OutboxHold> | undefined> {
    try {
      const { resource, etag } = await this.container.item(outboxHoldId(orderId), orderId).read<OutboxHold & ItemDefinition>();
      if (resource === undefined) return undefined;
      return { doc: withoutSystemProperties(resource), etag: etag ?? resource._etag ?? '' };
    } catch (error) {
      if (describeCosmosFailure(error).status === 404) return undefined;
      throw toStoreError(error, 'read', `the outbox hold of order ${orderId}`);
    }
  }

  async create(hold: OutboxHold): Promise<string | 'changed'> {
    try {
      const response = await this.container.items.create(hold);
      return response.etag ?? '';
    } catch (error) {
      if (describeCosmosFailure(error).status === 409) return 'changed';
      throw toStoreError(error, 'commit', `the outbox hold of order ${hold.orderId}`);
    }
  }

  async replace(hold: OutboxHold, etag: string): Promise<string | HoldWriteLost> {
    try {
      const response = await this.container.item(hold.id, hold.orderId).replace(hold, { accessCondition: { type: 'IfMatch', condition: etag } });
      return response.etag ?? '';
    } catch (error) {
      const lost = lostWrite(error);
      if (lost) return lost;
      throw toStoreError(error, 'commit', `the outbox hold of order ${hold.orderId}`);
    }
  }

  async delete(orderId: string, etag: string): Promise<'deleted' | HoldWriteLost> {
    try {
      await this.container.item(outboxHoldId(orderId), orderId).delete({ accessCondition: { type: 'IfMatch', condition: etag } });
      return 'deleted';
    } catch (error) {
      const lost = lostWrite(error);
      if (lost) return lost;
      throw toStoreError(error, 'commit', `the outbox hold of order ${orderId}`);
    }
  }

  /** Every hold (one cross-partition query), by order. */
  async list(filter: { orderId?: string } = {}): Promise<OutboxHold[]> {
    try {
      const { resources } = await this.container.items
        .query<OutboxHold & ItemDefinition>({ query: "SELECT * FROM c WHERE c.docType = 'outbox-hold'" }, { maxItemCount: 1000, ...(filter.orderId !== undefined && { partitionKey: filter.orderId }) })
        .fetchAll();
      return resources.map((r) => withoutSystemProperties<OutboxHold>(r)).sort((a, b) => (a.orderId < b.orderId ? -1 : a.orderId > b.orderId ? 1 : 0));
    } catch (error) {
      throw toStoreError(error, 'read', 'outbox holds');
    }
  }

  /** How many orders are on hold. */
  async count(): Promise<number> {
    try {
      const { resources } = await this.container.items.query<number>("SELECT VALUE COUNT(1) FROM c WHERE c.docType = 'outbox-hold'").fetchAll();
      return resources[0] ?? 0;
    } catch (error) {
      throw toStoreError(error, 'read', 'outbox holds');
    }
  }
}

function lostWrite(error: unknown): HoldWriteLost | undefined {
  const { status } = describeCosmosFailure(error);
  return status === 412 ? 'changed' : status === 404 ? 'missing' : undefined;
}

