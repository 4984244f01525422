/** A JSON object as stored and returned by the emulator. */
export type JsonObject = Record<string, unknown>;

/** Partition key definition as the SDK sends it when creating a container. */
export interface PartitionKeyDefinition {
  paths: string[];
  kind?: string;
  version?: number;
}

/** A stored database resource (system properties included). */
export interface DatabaseResource extends JsonObject {
  id: string;
  _rid: string;
  _self: string;
  _etag: string;
  _ts: number;
}

/** A stored container resource; `defaultTtl` and `indexingPolicy` are kept as sent. */
export interface ContainerResource extends JsonObject {
  id: string;
  _rid: string;
  _self: string;
  _etag: string;
  _ts: number;
  partitionKey: PartitionKeyDefinition;
  defaultTtl?: number;
  indexingPolicy: JsonObject;
}

/**
 * A stored document: the body as returned (system properties included) plus bookkeeping that never
 * goes on the wire. `expiresAt` is in epoch milliseconds so expiry is exact rather than per second.
 */
export interface StoredDocument {
  body: JsonObject & { id: string; _rid: string; _etag: string; _ts: number };
  /** Canonical partition key string (see `partitionKey.ts`). */
  pk: string;
  /** Epoch ms of the last write. */
  writtenAt: number;
  /** The container LSN of the last write (its place in the change feed); set when the write is applied. */
  lsn?: number;
}
