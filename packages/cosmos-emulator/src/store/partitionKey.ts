import { badRequest } from '../errors/errorFactory.js';
import type { JsonObject, PartitionKeyDefinition } from './types.js';

/*
 * Partition key values travel as a JSON array in `x-ms-documentdb-partitionkey` (one element per path).
 * A document without a value at a path is keyed with `{}` — the SDK's "None" literal — so documents
 * written without the property and reads/batches that pass `PartitionKey.None` meet in one partition.
 */

/** Literal the SDK uses for "no value at this path". */
const NONE_COMPONENT = {};

/** Reads the value at a partition key path such as `/orderId` or `/a/b`. */
function valueAtPath(doc: JsonObject, path: string): unknown {
  let current: unknown = doc;
  for (const raw of path.split('/').filter((s) => s.length > 0)) {
    const segment = raw.replace(/^"(.*)"$/, '$1');
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as JsonObject)[segment];
  }
  return current;
}

/** Canonical partition key string for a document under a definition. */
export function partitionKeyOfDocument(doc: JsonObject, definition: PartitionKeyDefinition): string {
  const components = definition.paths.map((path) => {
    const value = valueAtPath(doc, path);
    return value === undefined ? NONE_COMPONENT : value;
  });
  return JSON.stringify(components);
}

/**
 * Parses the partition key header into the canonical string, or returns undefined when absent.
 * @throws CosmosError 400 when the header is not a JSON array of the right length.
 */
export function partitionKeyFromHeader(
  header: string | undefined,
  definition: PartitionKeyDefinition,
): string | undefined {
  if (header === undefined || header === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(header);
  } catch {
    throw badRequest(`Partition key ${header} is invalid.`);
  }
  if (!Array.isArray(parsed)) throw badRequest(`Partition key ${header} is invalid.`);
  // The SDK sends [] for PartitionKey.Undefined-like reads on single-path containers; treat as None.
  if (parsed.length === 0) return JSON.stringify(definition.paths.map(() => NONE_COMPONENT));
  if (parsed.length !== definition.paths.length) {
    throw badRequest(
      `Partition key provided either doesn't correspond to definition in the collection or doesn't match partition key field values specified in the document.`,
      1001,
    );
  }
  return JSON.stringify(parsed.map((v: unknown) => (v === undefined ? NONE_COMPONENT : v)));
}
