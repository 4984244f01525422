/**
 * The relay's holds in the `orders` container (partition key `/orderId`): markers (`outbox-hold:<orderId>`) by
 * point reads and writes under their ETags, held records (`outbox-held:<entryId>`) by partition queries, each
 * append one transactional batch (held record + marker), and the cross-partition listing and count that the timer,
 * the CLI and the gauges read.
 */
import type { Container, ItemDefinition, OperationInput, OperationResponse } from '@azure/cosmos';
import {
  CoreErrorCode,
  StoreError,
  outboxHoldId,
  withoutSystemProperties,
  type HoldAppendResult,
  type HoldWriteLost,
  type OutboxDiscardRecord,
  type OutboxHeldRecord,
  type OutboxHold,
  type OutboxHoldStore,
  type Stored,
} from '../core/index.js';
import { describeCosmosFailure, storeErrorCodeOf, toStoreError } from './cosmosOrderStore.js';

/** Status of the operations of a failed batch that Cosmos did not run. */
const FAILED_DEPENDENCY = 424;

type Body = Extract<OperationInput, { operationType: 'Create' }>['resourceBody'];

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

  async append(marker: OutboxHold, etag: string | undefined, record: OutboxHeldRecord): Promise<HoldAppendResult> {
    const operations: OperationInput[] = [
      { operationType: 'Create', resourceBody: record as unknown as Body },
      etag === undefined
        ? { operationType: 'Create', resourceBody: marker as unknown as Body }
        : { operationType: 'Replace', id: marker.id, resourceBody: marker as unknown as Body, ifMatch: etag },
    ];
    let results: OperationResponse[] | undefined;
    try {
      results = (await this.container.items.batch(operations, marker.orderId)).result;
    } catch (error) {
      throw toStoreError(error, 'commit', `an outbox hold append in order ${marker.orderId}`);
    }
    const [held, written] = results ?? [];
    if (held === undefined || written === undefined)
      throw new StoreError(
        CoreErrorCode.StoreFailed,
        `Cosmos DB answered ${results?.length ?? 'no'} results for an outbox hold append in order ${marker.orderId}`,
      );
    if (held.statusCode === 409) return { kind: 'alreadyHeld' };
    if (written.statusCode === 409) return { kind: 'exists' };
    if (written.statusCode === 412) return { kind: 'changed' };
    if (written.statusCode === 404) return { kind: 'missing' };
    const failed =
      [held, written].find((r) => r.statusCode >= 400 && r.statusCode !== FAILED_DEPENDENCY) ??
      (written.statusCode >= 400 ? written : undefined);
    if (failed !== undefined) {
      const status = failed.statusCode;
      const message = `Cosmos DB refused an outbox hold append in order ${marker.orderId} with status ${status}`;
      const code = storeErrorCodeOf(
        { status, substatus: undefined, retryAfterMs: undefined, networkCode: undefined, message },
        'commit',
      );
      throw new StoreError(code, message, { status });
    }
    return { kind: 'written', etag: written.eTag ?? '' };
  }

  async replace(marker: OutboxHold, etag: string): Promise<string | HoldWriteLost> {
    try {
      const response = await this.container
        .item(marker.id, marker.orderId)
        .replace(marker, { accessCondition: { type: 'IfMatch', condition: etag } });
      return response.etag ?? '';
    } catch (error) {
      const lost = lostWrite(error);
      if (lost) return lost;
      throw toStoreError(error, 'commit', `the outbox hold of order ${marker.orderId}`);
    }
  }

  async delete(orderId: string, etag: string): Promise<'deleted' | HoldWriteLost> {
    try {
      await this.container
        .item(outboxHoldId(orderId), orderId)
        .delete({ accessCondition: { type: 'IfMatch', condition: etag } });
      return 'deleted';
    } catch (error) {
      const lost = lostWrite(error);
      if (lost) return lost;
      throw toStoreError(error, 'commit', `the outbox hold of order ${orderId}`);
    }
  }

  async heldRecords(orderId: string): Promise<OutboxHeldRecord[]> {
    try {
      const { resources } = await this.container.items
        .query<OutboxHeldRecord & ItemDefinition>(
          { query: "SELECT * FROM c WHERE c.docType = 'outbox-held'" },
          { partitionKey: orderId, maxItemCount: 1000 },
        )
        .fetchAll();
      return resources.map((r) => withoutSystemProperties<OutboxHeldRecord>(r)).sort((a, b) => a.sequence - b.sequence);
    } catch (error) {
      throw toStoreError(error, 'read', `the held outbox records of order ${orderId}`);
    }
  }

  /** How many records the order has held (one partition query). */
  async countHeld(orderId: string): Promise<number> {
    try {
      const { resources } = await this.container.items
        .query<number>(
          { query: "SELECT VALUE COUNT(1) FROM c WHERE c.docType = 'outbox-held'" },
          { partitionKey: orderId },
        )
        .fetchAll();
      return resources[0] ?? 0;
    } catch (error) {
      throw toStoreError(error, 'read', `the held outbox records of order ${orderId}`);
    }
  }

  async putHeld(record: OutboxHeldRecord): Promise<void> {
    try {
      await this.container.items.upsert(record);
    } catch (error) {
      throw toStoreError(error, 'commit', `held outbox record ${record.id} of order ${record.orderId}`);
    }
  }

  async deleteHeld(orderId: string, id: string): Promise<void> {
    try {
      await this.container.item(id, orderId).delete();
    } catch (error) {
      if (describeCosmosFailure(error).status === 404) return;
      throw toStoreError(error, 'commit', `held outbox record ${id} of order ${orderId}`);
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

function lostWrite(error: unknown): HoldWriteLost | undefined {
  const { status } = describeCosmosFailure(error);
  return status === 412 ? 'changed' : status === 404 ? 'missing' : undefined;
}
