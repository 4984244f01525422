import { badRequest } from '../errors/errorFactory.js';
import type { JsonObject } from '../store/types.js';
import { HybridRowError, readRecordIO, readRow, writeRecordIO, writeRow } from './hybridRow.js';
import type { RowSchema } from './hybridRow.js';

/*
 * Transactional batches as the .NET SDK sends them: a RecordIO stream of `BatchOperation` rows, answered
 * with a RecordIO stream of `BatchResult` rows (schemas of `Batch/HybridRowBatchSchemas.json` in
 * azure-cosmos-dotnet-v3; writer `ItemBatchOperation.WriteOperation`, reader
 * `TransactionalBatchOperationResult.ReadOperationResult`).
 */

const BATCH_OPERATION: RowSchema = {
  id: 2145473648,
  columns: [
    { path: 'operationType', type: 'int32', storage: 'fixed' },
    { path: 'resourceType', type: 'int32', storage: 'fixed' },
    { path: 'partitionKey', type: 'utf8', storage: 'variable' },
    { path: 'effectivePartitionKey', type: 'binary', storage: 'variable' },
    { path: 'id', type: 'utf8', storage: 'variable' },
    { path: 'binaryId', type: 'binary', storage: 'variable' },
    { path: 'resourceBody', type: 'binary', storage: 'variable' },
    { path: 'indexingDirective', type: 'utf8', storage: 'sparse' },
    { path: 'ifMatch', type: 'utf8', storage: 'sparse' },
    { path: 'ifNoneMatch', type: 'utf8', storage: 'sparse' },
    { path: 'timeToLiveInSeconds', type: 'int32', storage: 'sparse' },
    { path: 'minimalReturnPreference', type: 'bool', storage: 'sparse' },
  ],
};

const BATCH_RESULT: RowSchema = {
  id: 2145473649,
  columns: [
    { path: 'statusCode', type: 'int32', storage: 'fixed' },
    { path: 'subStatusCode', type: 'int32', storage: 'fixed' },
    { path: 'eTag', type: 'utf8', storage: 'variable' },
    { path: 'resourceBody', type: 'binary', storage: 'variable' },
    { path: 'retryAfterMilliseconds', type: 'uint32', storage: 'sparse' },
    { path: 'requestCharge', type: 'float64', storage: 'sparse' },
  ],
};

/** The SDK's `OperationType` values that a batch may carry, by the name the JSON batch uses. */
const OPERATION_TYPES: Record<number, string> = {
  0: 'Create',
  1: 'Patch',
  2: 'Read',
  4: 'Delete',
  5: 'Replace',
  20: 'Upsert',
};
const RESOURCE_TYPE_DOCUMENT = 2;

/** One decoded batch operation, in the JSON batch's shape plus the per-operation return preference. */
export interface HybridBatchOperation {
  operationType: string;
  id?: string;
  resourceBody?: unknown;
  partitionKey?: string;
  ifMatch?: string;
  ifNoneMatch?: string;
  minimal: boolean;
}

/** One operation's answer. */
export interface HybridBatchResult {
  statusCode: number;
  subStatusCode?: number;
  eTag?: string;
  resourceBody?: JsonObject;
  retryAfterMilliseconds?: number;
  requestCharge: number;
}

/** True when a batch body is HybridRow rather than JSON (its first byte is the HybridRow version). */
export function isHybridRowBatch(body: Buffer): boolean {
  return body[0] === 0x81;
}

/**
 * Decodes a HybridRow batch request.
 * @throws CosmosError 400 for a malformed stream, an unknown operation type, or an option the emulator does not support.
 */
export function readHybridBatch(body: Buffer): HybridBatchOperation[] {
  try {
    return readRecordIO(body).map((bytes, i) => toOperation(readRow(BATCH_OPERATION, bytes), i));
  } catch (error) {
    if (error instanceof HybridRowError)
      throw badRequest(`The HybridRow batch request is malformed: ${error.message}.`);
    throw error;
  }
}

function toOperation(row: ReturnType<typeof readRow>, i: number): HybridBatchOperation {
  const type = OPERATION_TYPES[row['operationType'] as number];
  if (type === undefined)
    throw badRequest(`Batch operation ${i} has an unsupported operationType ${String(row['operationType'])}.`);
  if (row['resourceType'] !== undefined && row['resourceType'] !== RESOURCE_TYPE_DOCUMENT) {
    throw badRequest(
      `Batch operation ${i} targets resource type ${String(row['resourceType'])}; only documents are supported.`,
    );
  }
  for (const unsupported of ['effectivePartitionKey', 'binaryId', 'timeToLiveInSeconds'] as const) {
    if (row[unsupported] !== undefined)
      throw badRequest(`Batch operation ${i} uses ${unsupported}, which the emulator does not support.`);
  }
  const directive = row['indexingDirective'];
  if (directive !== undefined && directive !== 'Default') {
    throw badRequest(
      `Batch operation ${i} uses indexingDirective ${String(directive)}, which the emulator does not support.`,
    );
  }
  const op: HybridBatchOperation = { operationType: type, minimal: row['minimalReturnPreference'] === true };
  if (typeof row['id'] === 'string') op.id = row['id'];
  if (typeof row['partitionKey'] === 'string') op.partitionKey = row['partitionKey'];
  if (typeof row['ifMatch'] === 'string') op.ifMatch = row['ifMatch'];
  if (typeof row['ifNoneMatch'] === 'string') op.ifNoneMatch = row['ifNoneMatch'];
  const resource = row['resourceBody'];
  if (Buffer.isBuffer(resource)) {
    try {
      op.resourceBody = JSON.parse(resource.toString('utf8'));
    } catch (error) {
      throw badRequest(`Batch operation ${i} has a resourceBody that is not valid JSON: ${(error as Error).message}`);
    }
  }
  return op;
}

/** Encodes batch results as the RecordIO stream the SDK reads. */
export function writeHybridBatchResults(results: HybridBatchResult[]): Buffer {
  return writeRecordIO(
    results.map((r) =>
      writeRow(BATCH_RESULT, {
        statusCode: r.statusCode,
        subStatusCode: r.subStatusCode ?? 0,
        eTag: r.eTag,
        resourceBody: r.resourceBody === undefined ? undefined : Buffer.from(JSON.stringify(r.resourceBody)),
        retryAfterMilliseconds: r.retryAfterMilliseconds,
        requestCharge: r.requestCharge,
      }),
    ),
  );
}
