/**
 * The emulator's cost model: what each request would charge on Azure Cosmos DB, in request units, estimated from
 * the charge-by-item-size table of "Understand request unit consumption" (Azure Cosmos DB documentation; source and
 * the constants outside that table are in the package's README.md). Pure: sizes in, request units out.
 */

/** One row of the table: an item size and what a point read and a write of an item that size charge. */
interface SizeRow {
  kb: number;
  read: number;
  write: number;
}

/** The published rows (session or eventual consistency, default indexing), smallest first. */
const ROWS: readonly SizeRow[] = [
  { kb: 1, read: 1.0, write: 4.95 },
  { kb: 2, read: 1.04, write: 6.29 },
  { kb: 4, read: 1.14, write: 6.67 },
  { kb: 8, read: 1.33, write: 7.04 },
  { kb: 16, read: 1.67, write: 9.52 },
  { kb: 32, read: 2.19, write: 11.23 },
  { kb: 64, read: 4.76, write: 22.67 },
  { kb: 128, read: 9.95, write: 48.19 },
  { kb: 256, read: 20.28, write: 98.29 },
  { kb: 512, read: 40.95, write: 184.57 },
  { kb: 1024, read: 145.9, write: 625.0 },
  { kb: 2048, read: 291.8, write: 1250.0 },
];

/** Charges outside the table; each is an assumption, stated (with why) in the README. */
export const CHARGE_CONSTANTS = {
  /** Every query page, before the items it returns (read feeds too). */
  queryBase: 2.8,
  /** Every change feed read, before the items it returns; also what a read that finds nothing new (304) charges. */
  changeFeedBase: 1.0,
  /** A point operation the service refuses after looking the item up (404, 409, 412): the 1 KB read row. */
  refusedOperation: 1.0,
} as const;

/** What a document-level operation is, for its charge. */
export type ChargedOperation = 'read' | 'create' | 'replace' | 'upsert' | 'patch' | 'delete';

/** The size of an item as stored: its JSON, system properties included, in UTF-8 bytes. */
export function storedSize(item: unknown): number {
  return Buffer.byteLength(JSON.stringify(item) ?? '');
}

/** A point read of an item of `bytes` bytes. */
function readCharge(bytes: number): number {
  return byRow(bytes, 'read');
}

/** A write (create, replace, upsert, patch or delete) of an item of `bytes` bytes. */
function writeCharge(bytes: number): number {
  return byRow(bytes, 'write');
}

/**
 * A successful point operation: a read (or a 304) by the read row of the item's size, a write by the write row of
 * the item as written — for a delete, the item removed.
 */
export function operationCharge(kind: ChargedOperation, itemBytes: number | undefined): number {
  if (kind === 'read') return readCharge(itemBytes ?? 0);
  return writeCharge(itemBytes ?? 0);
}

/** Bytes an operation writes: the item as stored for a create, replace, upsert or patch; nothing for a read or a delete. */
export function writtenBytes(kind: ChargedOperation, itemBytes: number | undefined): number {
  return kind === 'read' || kind === 'delete' ? 0 : (itemBytes ?? 0);
}

/** A query (or read feed) page: the base, plus each returned item by the read row of its size. */
export function queryCharge(itemSizes: readonly number[]): number {
  return feedCharge(CHARGE_CONSTANTS.queryBase, itemSizes);
}

/** A change feed read: the base, plus each returned item by the read row of its size. */
export function changeFeedCharge(itemSizes: readonly number[]): number {
  return feedCharge(CHARGE_CONSTANTS.changeFeedBase, itemSizes);
}

/**
 * A successful request on a resource other than an item — the account, a database, a container, its partition key
 * ranges, an offer, a user, a permission, a script, a client encryption key, a conflict, a query plan, a stored
 * procedure run, a partition key delete — charged as an item of the resource's size (the REST API reference's
 * examples answer 4.95 RU, the 1 KB write row, for creating or deleting a database): a list or query by the query
 * rule over the resources it returns, a write by the write row of the resource as written (a delete, which answers
 * none, by the 1 KB row), anything else — a read, a 304, a query plan, a run's answer — by the read row of what it
 * answers.
 */
export function resourceCharge(kind: 'read' | 'write', status: number, body: unknown): number {
  if (status === 304) return readCharge(0);
  const listed = feedOf(body);
  if (listed !== undefined) return queryCharge(listed.map(storedSize));
  const bytes = body === undefined || Buffer.isBuffer(body) ? (body?.length ?? 0) : storedSize(body);
  return kind === 'write' ? writeCharge(bytes) : readCharge(bytes);
}

/** The resources of a feed answer (`{ _rid, <Kind>: [...], _count }`), or undefined for any other body. */
function feedOf(body: unknown): readonly unknown[] | undefined {
  if (typeof body !== 'object' || body === null || !('_count' in body)) return undefined;
  return Object.values(body).find((v): v is unknown[] => Array.isArray(v));
}

/** A sum of charges as the service reports one: to the hundredth. */
export function sumCharges(charges: readonly number[]): number {
  return hundredths(charges.reduce((a, b) => a + b, 0));
}

function feedCharge(base: number, itemSizes: readonly number[]): number {
  return sumCharges([base, ...itemSizes.map(readCharge)]);
}

/** The 1 KB row below 1 KB, linear between rows, the last row beyond it (the service stores nothing larger). */
function byRow(bytes: number, column: 'read' | 'write'): number {
  const kb = bytes / 1024;
  const first = ROWS[0] as SizeRow;
  if (kb <= first.kb) return first[column];
  for (let i = 1; i < ROWS.length; i++) {
    const upper = ROWS[i] as SizeRow;
    if (kb <= upper.kb) {
      const lower = ROWS[i - 1] as SizeRow;
      return hundredths(lower[column] + ((kb - lower.kb) / (upper.kb - lower.kb)) * (upper[column] - lower[column]));
    }
  }
  return (ROWS[ROWS.length - 1] as SizeRow)[column];
}

function hundredths(value: number): number {
  return Math.round(value * 100) / 100;
}
