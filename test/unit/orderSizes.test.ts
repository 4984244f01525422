import { describe, expect, it } from 'vitest';
import {
  ID_MAX_BYTES,
  ENTRY_ID_MAX_LENGTH,
  ORDER_ID_MAX_LENGTH,
  ORDER_MAX_PARKED,
  ORDER_MAX_TRANSACTIONS,
  entryMessageId,
  orderEventMessage,
  requestHash,
  type Entry,
  decide,
  type Decision,
  type InboxRecord,
  type OrderDocument,
  type OrderWrite,
  type ParkedEntryDocument,
  type Stored,
} from '../../src/core/index.js';
import { writeFor, type EntryOrigin, type StepStamp } from '../../src/core/processor/orderWrites.js';

/**
 * The contract's bounds (README, "Contracts and processing rules") keep an order within Azure's limits however long it lives.
 * This fills orders to both bounds with every field at its longest and measures what Azure would be sent, in
 * UTF-8 bytes of JSON. Every document is built by the processor's own decision and write builders, as it would commit it.
 */

/** Cosmos DB's largest item, and its largest transactional batch request. */
const COSMOS_MAX_ITEM_BYTES = 2 * 1024 * 1024;
const COSMOS_MAX_BATCH_BYTES = 2 * 1024 * 1024;
/** Service Bus Standard: the whole message, headers and properties included. */
const SERVICE_BUS_STANDARD_MAX_MESSAGE_BYTES = 256 * 1024;
/**
 * What a message's headers and properties may take on top of its body: the service's own ceiling on the header
 * section (64 KB). Ours are far smaller (messageId, sessionId, correlationId, contentType, sequence, type and the
 * trace context are under 1 KB), so a body that fits beside 64 KB of headers fits with any the broker adds.
 */
const SERVICE_BUS_MAX_HEADER_BYTES = 64 * 1024;
/** The system properties Cosmos DB adds to a stored item (`_rid`, `_self`, `_etag`, `_attachments`, `_ts`), generously. */
const COSMOS_SYSTEM_PROPERTIES_BYTES = 512;
/** The SDK's envelope of each batch operation (`operationType`, `id`, `ifMatch`, partition key), generously. */
const BATCH_OPERATION_ENVELOPE_BYTES = 256;

const MAX = Number.MAX_SAFE_INTEGER;
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');
/** A string of exactly `length` characters ending in `n`, so every id is distinct and as long as allowed. */
const longest = (fill: string, n: number | string, length: number) => String(n).padStart(length, fill);

const orderId = longest('o', 'order', ORDER_ID_MAX_LENGTH);
const ledgerId = longest('L', 'ledger', ORDER_ID_MAX_LENGTH);
const entryId = (sequence: number) => longest('e', sequence, ENTRY_ID_MAX_LENGTH);
const transactionId = (i: number) => longest('t', i, ID_MAX_BYTES);
/** Amounts of the longest JSON form whose running total stays a safe integer: +MAX, -MAX, +MAX, … */
const amount = (i: number) => (i % 2 === 1 ? MAX : -MAX);

const stamp = (at: number): StepStamp => ({
  // The longest consumer name `INBOX_CONSUMER_NAME` accepts (64 characters) makes the longest inbox ids.
  consumer: 'c'.repeat(64),
  now: new Date(Date.UTC(2025, 0, 1) + at).toISOString(),
  inboxTtlSeconds: 1_850_000,
  outboxTtlSeconds: 604_800,
  attempt: '00000000-0000-4000-8000-000000000000',
});
const origin = (sequence: number): EntryOrigin => ({
  correlationId: ledgerId,
  messageId: `${entryId(sequence)}.r99`,
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
});

/** The processor's decision on `entry` against `order`, its key seen nowhere (nothing to look up). */
function decision(order: Stored<OrderDocument> | undefined, entry: Entry, source: 'message' | 'parked' = 'message'): Decision {
  return decide({ source, entry: { valid: true, entry, hash: requestHash(entry) }, sessionId: orderId, order: order?.doc ?? null, seen: { inbox: null, applied: null } });
}

/** Decides `entry` against `order` and builds its write; it must write (apply or park). */
function commit(order: Stored<OrderDocument> | undefined, entry: Entry, at: number): { write: OrderWrite; order: Stored<OrderDocument> } {
  const decided = decision(order, entry);
  const write = writeFor(decided, { entry, hash: requestHash(entry), order, origin: origin(entry.sequence) }, stamp(at));
  if (write === undefined) throw new Error(`Sequence ${entry.sequence} did not commit: ${decided.reason}`);
  return { write, order: { doc: write.order.doc, etag: `"etag-${at}"` } };
}

/** Decides a due parked entry and builds its write (apply, or reject with its own inbox record). */
function drain(order: Stored<OrderDocument>, parked: Stored<ParkedEntryDocument>, ownInbox: Stored<InboxRecord> | null, at: number): { decided: Decision; write: OrderWrite } {
  const { entry } = parked.doc;
  const decided = decision(order, entry, 'parked');
  const write = writeFor(decided, { entry, hash: parked.doc.requestHash, order, origin: origin(entry.sequence), parked: { doc: parked, ownInbox } }, stamp(at));
  if (write === undefined) throw new Error(`Parked sequence ${entry.sequence} did not commit: ${decided.reason}`);
  return { decided, write };
}

const created: Entry = {
  entryId: entryId(1),
  orderId,
  sequence: 1,
  type: 'OrderCreated',
  data: { customerId: longest('c', 'customer', ID_MAX_BYTES), currency: 'EUR' },
};
const added = (sequence: number, i: number): Entry => ({
  entryId: entryId(sequence),
  orderId,
  sequence,
  type: 'TransactionAdded',
  data: { transactionId: transactionId(i), amount: amount(i) },
});
/**
 * The longest entry that can park: the highest sequences, an amendment with the longest fields (of a transaction
 * that holds -MAX already, so applying it keeps the total safe).
 */
const parkable = (k: number): Entry => ({
  entryId: entryId(MAX - k),
  orderId,
  sequence: MAX - k,
  type: 'TransactionAmended',
  data: { transactionId: transactionId(2 * (k % (ORDER_MAX_TRANSACTIONS / 2)) + 2), amount: -MAX },
});

/** OrderCreated, then 1,000 transactions at sequences 2 … 1,001, then 1,000 parked entries at the highest sequences. */
function fullOrder() {
  let { order } = commit(undefined, created, 0);
  for (let i = 1; i <= ORDER_MAX_TRANSACTIONS; i++) ({ order } = commit(order, added(i + 1, i), i));
  const parked: Stored<ParkedEntryDocument>[] = [];
  for (let k = 0; k < ORDER_MAX_PARKED; k++) {
    const step = commit(order, parkable(k), ORDER_MAX_TRANSACTIONS + 1 + k);
    order = step.order;
    const created = step.write.parked && 'create' in step.write.parked ? step.write.parked.create : undefined;
    if (!created) throw new Error(`Sequence ${parkable(k).sequence} did not park`);
    parked.push({ doc: created, etag: `"parked-${k}"` });
  }
  return { order, parked };
}

/** Request bytes of a transactional batch, as the SDK sends it: each operation's envelope and body (a delete's id). */
function batchBytes(write: OrderWrite): number {
  const { inbox, parked, applied, order, outbox } = write;
  const bodies = [
    inbox && ('create' in inbox ? inbox.create : 'upsert' in inbox ? inbox.upsert : inbox.delete.doc.id),
    parked && ('create' in parked ? parked.create : parked.delete.doc.id),
    applied,
    order.doc,
    outbox,
  ].filter((body) => body !== undefined);
  return bodies.reduce<number>((sum, body) => sum + BATCH_OPERATION_ENVELOPE_BYTES + bytes(body), 0);
}
const storedBytes = (doc: unknown) => bytes(doc) + COSMOS_SYSTEM_PROPERTIES_BYTES;

// Measured when written (ASCII fields): a full open order 410 KB stored, its next apply batch 561 KB, its event
// body 148 KB; the deleted order with 1,000 rejected entries 1.32 MB stored and in its last batch. Fields of
// non-ASCII characters take up to 3 bytes (6 when JSON escapes them) per character and are not covered here.
describe('an order filled to both bounds with the longest ASCII fields stays within Azure limits', () => {
  const { order, parked } = fullOrder();
  const lastSequence = ORDER_MAX_TRANSACTIONS + 1;

  it('is really full: 1,000 transactions of the longest fields and 1,000 parked entries', () => {
    // Assess
    expect(order.doc.state.transactions).toHaveLength(ORDER_MAX_TRANSACTIONS);
    expect(order.doc.parked).toHaveLength(ORDER_MAX_PARKED);
    expect(order.doc.lastSequence).toBe(lastSequence);
    expect(decision(order, added(lastSequence + 1, 0))).toMatchObject({ kind: 'deadLetter', rule: 7 });
    expect(decision(order, { ...parkable(ORDER_MAX_PARKED), sequence: lastSequence + 5 })).toMatchObject({ kind: 'deadLetter', rule: 7 });
  });

  it('applies its next entry in one batch that fits 2 MB, whose order document fits 2 MB and whose event fits 256 KB', () => {
    // Prepare: the longest entry that still applies, an amendment at the next sequence
    const next: Entry = {
      entryId: entryId(lastSequence + 1),
      orderId,
      sequence: lastSequence + 1,
      type: 'TransactionAmended',
      data: { transactionId: transactionId(2), amount: -MAX },
    };
    // Act
    const { write } = commit(order, next, 3 * ORDER_MAX_TRANSACTIONS);
    const event = orderEventMessage(write.outbox!);
    // Assess
    expect(Object.keys(write)).toEqual(['inbox', 'applied', 'order', 'outbox']);
    const figures = { order: storedBytes(write.order.doc), batch: batchBytes(write), eventBody: bytes(event.body) };
    expect(figures.order).toBeLessThan(COSMOS_MAX_ITEM_BYTES);
    expect(figures.batch).toBeLessThan(COSMOS_MAX_BATCH_BYTES);
    expect(figures.eventBody).toBeLessThan(SERVICE_BUS_STANDARD_MAX_MESSAGE_BYTES - SERVICE_BUS_MAX_HEADER_BYTES);
  });

  it('drains a due parked entry in one batch that fits 2 MB', () => {
    // Prepare: the parked entry at the highest sequence as if it were due
    const due = parked[0]!;
    const dueOrder: Stored<OrderDocument> = { ...order, doc: { ...order.doc, lastSequence: due.doc.sequence - 1 } };
    // Act
    const { decided, write } = drain(dueOrder, due, null, 0);
    // Assess
    expect(decided.kind).toBe('apply');
    expect(batchBytes(write)).toBeLessThan(COSMOS_MAX_BATCH_BYTES);
    expect(bytes(orderEventMessage(write.outbox!).body)).toBeLessThan(SERVICE_BUS_STANDARD_MAX_MESSAGE_BYTES - SERVICE_BUS_MAX_HEADER_BYTES);
  });

  it('still fits once OrderDeleted fills the gap and every parked entry moves to rejected (rule 11), its largest shape', () => {
    // Prepare: OrderDeleted at the next sequence, then the drain rejects the 1,000 parked entries one by one
    const deleted: Entry = { entryId: entryId(lastSequence + 1), orderId, sequence: lastSequence + 1, type: 'OrderDeleted', data: {} };
    let current = commit(order, deleted, 4 * ORDER_MAX_TRANSACTIONS).order;
    let last: ReturnType<typeof drain> | undefined;
    // Act
    for (const entry of parked) {
      const ownInbox: Stored<InboxRecord> = { doc: { id: `inbox:${'c'.repeat(64)}:${entry.doc.entryId}` } as InboxRecord, etag: '"inbox"' };
      last = drain(current, entry, ownInbox, 0);
      current = { doc: last.write.order.doc, etag: current.etag };
    }
    // Assess: each rejection only adds to the document, so the last batch is the largest
    expect(last?.decided.kind).toBe('reject');
    expect(current.doc).toMatchObject({ parked: [], state: { status: 'deleted' } });
    expect(current.doc.rejected).toHaveLength(ORDER_MAX_PARKED);
    const figures = { order: storedBytes(current.doc), batch: batchBytes(last!.write) };
    expect(figures.order).toBeLessThan(COSMOS_MAX_ITEM_BYTES);
    expect(figures.batch).toBeLessThan(COSMOS_MAX_BATCH_BYTES);
  });

  it('keeps the order-events message id within the Service Bus limit', () => {
    // Assess: `outbox:<entryId>` and `<entryId>:<hash16>` stay within 128 characters
    expect(`outbox:${entryId(1)}`.length).toBeLessThanOrEqual(128);
    expect(entryMessageId(entryId(1), requestHash(created)).length).toBeLessThanOrEqual(128);
  });
});
