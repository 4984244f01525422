/**
 * Operation kinds the emulator counts and can inject faults into. Document-level kinds use the SDK's
 * operation names; metadata kinds are prefixed with their resource.
 */
export const OperationKind = {
  Account: 'account',
  DatabaseCreate: 'database.create',
  DatabaseRead: 'database.read',
  DatabaseList: 'database.list',
  DatabaseDelete: 'database.delete',
  ContainerCreate: 'container.create',
  ContainerRead: 'container.read',
  ContainerList: 'container.list',
  ContainerReplace: 'container.replace',
  ContainerDelete: 'container.delete',
  PartitionKeyRanges: 'pkranges',
  Create: 'create',
  Read: 'read',
  Replace: 'replace',
  Upsert: 'upsert',
  Delete: 'delete',
  Patch: 'patch',
  Batch: 'batch',
  Bulk: 'bulk',
  Query: 'query',
  QueryPlan: 'queryPlan',
  ReadFeed: 'readFeed',
  ChangeFeed: 'changeFeed',
  /** Reads, lists and queries of offers, users, permissions, keys, scripts and conflicts. */
  MetadataRead: 'metadata.read',
  /** Creates, replaces and deletes of those resources. */
  MetadataWrite: 'metadata.write',
  /** A stored procedure's execution. */
  ExecuteStoredProcedure: 'sproc.execute',
  /** `deleteAllItemsForPartitionKey`. */
  PartitionKeyDelete: 'partitionKeyDelete',
  Unknown: 'unknown',
} as const;

/** One of {@link OperationKind}. */
export type OperationKind = (typeof OperationKind)[keyof typeof OperationKind];

/** Kinds that write a resource other than an item (`resourceCharge` in requestCharge.ts); every other kind reads. */
const RESOURCE_WRITES: ReadonlySet<OperationKind> = new Set([
  OperationKind.DatabaseCreate,
  OperationKind.DatabaseDelete,
  OperationKind.ContainerCreate,
  OperationKind.ContainerReplace,
  OperationKind.ContainerDelete,
  OperationKind.MetadataWrite,
  OperationKind.PartitionKeyDelete,
]);

/** Whether a request of `kind` that no handler charged is charged as a read or a write of its resource. */
export function chargeKind(kind: OperationKind): 'read' | 'write' {
  return RESOURCE_WRITES.has(kind) ? 'write' : 'read';
}
