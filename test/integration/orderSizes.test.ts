import { ServiceBusClient, type ServiceBusSender } from '@azure/service-bus';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type RunningEmulator } from '@ledger-convoy/servicebus-emulator';
import { serviceBusMessageOf } from '../../src/adapters/serviceBusBatchSender.js';
import { ORDER_MAX_TRANSACTIONS, type Entry, type Stored } from '../../src/core/index.js';
import {
  ID_MAX_BYTES,
  ENTRY_ID_MAX_LENGTH,
  ORDER_ID_MAX_LENGTH,
  ORDER_MAX_PARKED,
} from '../../src/core/schemas/limits.js';
import { entryMessageId, requestHash } from '../../src/core/hash.js';
import { outboundEvent } from '../../src/core/outbox/orderEvent.js';
import { decide, type Decision, type EntryOrigin } from '../../src/core/processor/decide.js';
import type { AppliedEntryRecord, EntryRecord, ParkedEntryRecord } from '../../src/core/documents/entryRecord.js';
import type { OrderDocument } from '../../src/core/documents/orderDocument.js';
import type { OrderWrite } from '../../src/core/ports/orderStore.js';
import type { TransactionDocument } from '../../src/core/documents/transactionDocument.js';
import { writeFor, type StepStamp } from '../../src/core/processor/orderWrites.js';
import { testServiceBusConfig } from './support/stack.js';

/**
 * The contract's bounds (docs/contracts.md) keep an order within Azure's limits however long
 * it lives, whatever its text. This fills orders to both bounds with every field at its longest, in three kinds of
 * text — ASCII, characters of several UTF-8 bytes, and characters JSON must escape — and measures what Azure would be
 * sent: documents and batches in UTF-8 bytes of JSON, events as Service Bus measures them (the SDK's batch,
 * `tryAddMessage`, on the emulator). Every document is built by the processor's own decision and write builders.
 */

/** Cosmos DB's largest item, and its largest transactional batch request. */
const COSMOS_MAX_ITEM_BYTES = 2 * 1024 * 1024;
const COSMOS_MAX_BATCH_BYTES = 2 * 1024 * 1024;
/** Service Bus Standard: the whole message, headers and properties included. */
const SERVICE_BUS_STANDARD_MAX_MESSAGE_BYTES = 256 * 1024;
/** What an event may weigh at the byte bounds, whatever the order's length (docs/architecture.md, "Order events"). */
const EVENT_MAX_BYTES = 4 * 1024;
/**
 * What an applied entry's record, kept for good, may weigh at the byte bounds (docs/architecture.md, "Retention and
 * its cost").
 */
const ENTRY_RECORD_MAX_BYTES = 6 * 1024;
/** The system properties Cosmos DB adds to a stored item (`_rid`, `_self`, `_etag`, `_attachments`, `_ts`), generously. */
const COSMOS_SYSTEM_PROPERTIES_BYTES = 512;
/** The SDK's envelope of each batch operation (`operationType`, `id`, `ifMatch`, partition key), generously. */
const BATCH_OPERATION_ENVELOPE_BYTES = 256;

const MAX = Number.MAX_SAFE_INTEGER;
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');
const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * One kind of text: how an id introduced by an entry (100 UTF-8 bytes) and an orderId or ledgerId (128 UTF-16 units)
 * are filled. Each id ends in its number, so ids are distinct and exactly as long as allowed.
 */
interface Text {
  name: string;
  /** Fills a byte-bounded id (customerId, transactionId). */
  fill: string;
  /** Fills an orderId or ledgerId (bounded in characters, not bytes). */
  longFill: string;
}
const TEXTS: Text[] = [
  { name: 'ASCII', fill: 't', longFill: 'o' },
  // 4 bytes in 2 UTF-16 units for the byte-bounded ids; "€" is the most bytes per unit (3) for the others.
  { name: 'characters of several UTF-8 bytes', fill: '\u{1F600}', longFill: '€' },
  // One byte each, two in JSON (`\"`); a control character (allowed in an orderId only) is six (`\u0001`).
  { name: 'characters JSON escapes', fill: '"', longFill: '\u0001' },
];

/** An id of exactly `maxBytes` UTF-8 bytes ending in `n`: `fill` as far as it goes, then ASCII. */
function byteBounded(text: Text, n: number | string, maxBytes: number): string {
  let id = String(n);
  while (utf8(text.fill + id) <= maxBytes) id = text.fill + id;
  while (utf8(`t${id}`) <= maxBytes) id = `t${id}`;
  return id;
}
/** An id of exactly `length` UTF-16 units ending in `n`. */
const characterBounded = (text: Text, n: number | string, length: number) => String(n).padStart(length, text.longFill);

/** Everything of one text kind: its ids, entries and the processor's steps on them. */
function scenario(text: Text) {
  const orderId = characterBounded(text, 'order', ORDER_ID_MAX_LENGTH);
  const ledgerId = characterBounded(text, 'ledger', ORDER_ID_MAX_LENGTH);
  const entryId = (sequence: number) => String(sequence).padStart(ENTRY_ID_MAX_LENGTH, 'e');
  const transactionId = (i: number) => byteBounded(text, i, ID_MAX_BYTES);
  /** Amounts of the longest JSON form whose running total stays a safe integer: +MAX, -MAX, +MAX, … */
  const amount = (i: number) => (i % 2 === 1 ? MAX : -MAX);

  const stamp = (at: number): StepStamp => ({
    // The longest consumer name `INBOX_CONSUMER_NAME` accepts (64 characters) makes the longest record ids.
    consumer: 'c'.repeat(64),
    now: new Date(Date.UTC(2025, 0, 1) + at).toISOString(),
  });
  const origin = (sequence: number): EntryOrigin => ({
    correlationId: ledgerId,
    messageId: `${entryId(sequence)}.r99`,
    traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  });

  /** The transactions the order holds, as their documents were written (the store's part: read by an amendment). */
  const transactions = new Map<string, Stored<TransactionDocument>>();
  const transactionOf = (entry: Entry) =>
    entry.type === 'TransactionAmended' ? (transactions.get(entry.data.transactionId) ?? null) : undefined;

  /** The processor's decision on `entry` against `order`, its key seen nowhere, the transaction it amends read. */
  const decision = (
    order: Stored<OrderDocument> | undefined,
    entry: Entry,
    source: 'message' | 'parked' = 'message',
  ): Decision => {
    const transaction = transactionOf(entry);
    return decide({
      source,
      entry,
      hash: requestHash(entry),
      order: order?.doc,
      record: null,
      ...(transaction !== undefined && { current: transaction?.doc ?? null }),
    });
  };

  /** Decides `entry` against `order` and builds its write; it must write (apply or park). */
  const commit = (
    order: Stored<OrderDocument> | undefined,
    entry: Entry,
    at: number,
  ): { write: OrderWrite; order: Stored<OrderDocument> } => {
    const decided = decision(order, entry);
    const write = writeFor(
      decided,
      {
        entry,
        hash: requestHash(entry),
        order,
        origin: origin(entry.sequence),
        record: undefined,
        transaction: transactionOf(entry) ?? undefined,
      },
      stamp(at),
    );
    if (write === undefined) throw new Error(`Sequence ${entry.sequence} did not commit: ${decided.reason}`);
    const created = write.transaction && 'create' in write.transaction ? write.transaction.create : undefined;
    if (created) transactions.set(created.transactionId, { doc: created, etag: `"txn-${at}"` });
    return { write, order: { doc: write.order.doc, etag: `"etag-${at}"` } };
  };

  /** Decides a due parked entry and builds its write (apply or reject, replacing its record). */
  const drain = (order: Stored<OrderDocument>, parked: Stored<ParkedEntryRecord>, at: number) => {
    const { entry } = parked.doc;
    const decided = decision(order, entry, 'parked');
    const transaction = transactionOf(entry) ?? undefined;
    const write = writeFor(
      decided,
      {
        entry,
        hash: parked.doc.requestHash,
        order,
        origin: origin(entry.sequence),
        record: parked,
        transaction,
      },
      stamp(at),
    );
    if (write === undefined) throw new Error(`Parked sequence ${entry.sequence} did not commit: ${decided.reason}`);
    return { decided, write };
  };

  const created: Entry = {
    entryId: entryId(1),
    orderId,
    sequence: 1,
    type: 'OrderCreated',
    data: { customerId: byteBounded(text, 'customer', ID_MAX_BYTES), currency: 'EUR' },
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

  /**
   * OrderCreated, then 1,000 transactions at sequences 2 … 1,001, then 1,000 parked entries at the highest sequences;
   * with the writes of the first and the last transaction added.
   */
  const fullOrder = () => {
    let { order } = commit(undefined, created, 0);
    const adds: OrderWrite[] = [];
    for (let i = 1; i <= ORDER_MAX_TRANSACTIONS; i++) {
      const step = commit(order, added(i + 1, i), i);
      order = step.order;
      if (i === 1 || i === ORDER_MAX_TRANSACTIONS) adds.push(step.write);
    }
    const parked: Stored<ParkedEntryRecord>[] = [];
    for (let k = 0; k < ORDER_MAX_PARKED; k++) {
      const step = commit(order, parkable(k), ORDER_MAX_TRANSACTIONS + 1 + k);
      order = step.order;
      const made = recordOf(step.write);
      if (made?.status !== 'parked') throw new Error(`Sequence ${parkable(k).sequence} did not park`);
      parked.push({ doc: made, etag: `"parked-${k}"` });
    }
    return { order, parked, firstAdd: adds[0]!, lastAdd: adds[1]! };
  };

  return {
    orderId,
    entryId,
    transactionId,
    transactions,
    created,
    added,
    parkable,
    decision,
    commit,
    drain,
    fullOrder,
  };
}

/** The entry's record a write creates or replaces. */
function recordOf(write: OrderWrite): EntryRecord | undefined {
  return write.entry && ('create' in write.entry ? write.entry.create : write.entry.replace.doc);
}

/** The applied entry's record (its stored event) a write creates or replaces. */
function appliedOf(write: OrderWrite): AppliedEntryRecord {
  const record = recordOf(write);
  if (record?.status !== 'applied') throw new Error('the write applies no entry');
  return record;
}

/** Request bytes of a transactional batch, as the SDK sends it: each operation's envelope and body. */
function batchBytes(write: OrderWrite): number {
  const { order, transaction } = write;
  const bodies = [
    recordOf(write),
    order.doc,
    transaction && ('create' in transaction ? transaction.create : transaction.replace.doc),
  ].filter((body) => body !== undefined);
  return bodies.reduce<number>((sum, body) => sum + BATCH_OPERATION_ENVELOPE_BYTES + bytes(body), 0);
}
const storedBytes = (doc: unknown) => bytes(doc) + COSMOS_SYSTEM_PROPERTIES_BYTES;

let emulator: RunningEmulator;
let client: ServiceBusClient;
let sender: ServiceBusSender;

beforeAll(async () => {
  emulator = await start({ port: 0, adminPort: 0, config: testServiceBusConfig });
  client = new ServiceBusClient(emulator.connectionString);
  sender = client.createSender('order-events');
});

afterAll(async () => {
  await sender?.close();
  await client?.close();
  await emulator?.close();
});

/**
 * Whether the `order-events` message of a write's stored event — as the relay's sender builds it, every property
 * set, the trace context included — fits a Standard-tier message, measured by the SDK's own batch.
 */
async function fitsServiceBus(write: OrderWrite): Promise<{ fits: boolean; bodyBytes: number }> {
  const event = outboundEvent(appliedOf(write));
  const message = serviceBusMessageOf(event, event.traceparent);
  const batch = await sender.createMessageBatch({ maxSizeInBytes: SERVICE_BUS_STANDARD_MAX_MESSAGE_BYTES });
  return { fits: batch.tryAddMessage(message), bodyBytes: bytes(event.body) };
}

const figures: Record<string, Record<string, number>> = {};

describe.each(TEXTS)(
  'an order filled to both bounds with the longest fields ($name) stays within Azure limits',
  (text) => {
    const s = scenario(text);
    const { order, parked, firstAdd, lastAdd } = s.fullOrder();
    const lastSequence = ORDER_MAX_TRANSACTIONS + 1;
    const measured = (figures[text.name] ??= {});

    it('is really full: 1,000 transactions of the longest fields and 1,000 parked entries', () => {
      // Assess
      expect(utf8(s.transactionId(1))).toBe(ID_MAX_BYTES);
      expect(order.doc.state.transactionCount).toBe(ORDER_MAX_TRANSACTIONS);
      expect(s.transactions.size).toBe(ORDER_MAX_TRANSACTIONS);
      expect(order.doc.parked).toHaveLength(ORDER_MAX_PARKED);
      expect(order.doc.lastSequence).toBe(lastSequence);
      expect(s.decision(order, s.added(lastSequence + 1, 0))).toMatchObject({ kind: 'deadLetter', rule: 7 });
      expect(s.decision(order, { ...s.parkable(ORDER_MAX_PARKED), sequence: lastSequence + 5 })).toMatchObject({
        kind: 'deadLetter',
        rule: 7,
      });
    });

    it('applies its next entry in one batch that fits 2 MB, whose documents fit 2 MB and whose event is under 4 KB', async () => {
      // Prepare: the longest entry that still applies, an amendment at the next sequence (its change the largest)
      const next: Entry = {
        entryId: s.entryId(lastSequence + 1),
        orderId: s.orderId,
        sequence: lastSequence + 1,
        type: 'TransactionAmended',
        data: { transactionId: s.transactionId(2), amount: -MAX },
      };
      // Act
      const { write } = s.commit(order, next, 3 * ORDER_MAX_TRANSACTIONS);
      const event = await fitsServiceBus(write);
      // Assess
      expect(Object.keys(write)).toEqual(['entry', 'order', 'transaction']);
      const transaction =
        write.transaction && 'replace' in write.transaction ? write.transaction.replace.doc : undefined;
      Object.assign(measured, {
        record: storedBytes(appliedOf(write)),
        order: storedBytes(write.order.doc),
        transaction: storedBytes(transaction),
        batch: batchBytes(write),
        event: event.bodyBytes,
      });
      expect(measured.order).toBeLessThan(COSMOS_MAX_ITEM_BYTES);
      expect(measured.record).toBeLessThan(ENTRY_RECORD_MAX_BYTES);
      expect(measured.transaction).toBeLessThan(COSMOS_MAX_ITEM_BYTES);
      expect(measured.batch).toBeLessThan(COSMOS_MAX_BATCH_BYTES);
      expect(event.fits).toBe(true);
      expect(event.bodyBytes).toBeLessThan(EVENT_MAX_BYTES);
    });

    it('writes the 1,000th transaction with the same event and order document as the 1st: neither grows with the order', async () => {
      // Act
      const [first, last] = [await fitsServiceBus(firstAdd), await fitsServiceBus(lastAdd)];
      // Assess: only numbers differ (sequence, count, total, entryId padding is fixed), by a few digits
      Object.assign(measured, {
        firstAddEvent: first.bodyBytes,
        lastAddEvent: last.bodyBytes,
        lastAddBatch: batchBytes(lastAdd),
      });
      expect(last.bodyBytes).toBeLessThan(EVENT_MAX_BYTES);
      expect(Math.abs(last.bodyBytes - first.bodyBytes)).toBeLessThan(32);
      expect(Math.abs(storedBytes(lastAdd.order.doc) - storedBytes(firstAdd.order.doc))).toBeLessThan(32);
      expect(Object.keys(lastAdd)).toEqual(['entry', 'order', 'transaction']);
      expect(Math.abs(storedBytes(appliedOf(lastAdd)) - storedBytes(appliedOf(firstAdd)))).toBeLessThan(32);
    });

    it('drains a due parked entry in one batch that fits 2 MB, its event within 256 KB', async () => {
      // Prepare: the parked entry at the highest sequence as if it were due
      const due = parked[0]!;
      const dueOrder: Stored<OrderDocument> = { ...order, doc: { ...order.doc, lastSequence: due.doc.sequence - 1 } };
      // Act
      const { decided, write } = s.drain(dueOrder, due, 0);
      // Assess
      expect(decided.kind).toBe('apply');
      expect(batchBytes(write)).toBeLessThan(COSMOS_MAX_BATCH_BYTES);
      const event = await fitsServiceBus(write);
      expect(event.fits).toBe(true);
      expect(event.bodyBytes).toBeLessThan(EVENT_MAX_BYTES);
    });

    it('still fits once OrderDeleted fills the gap and every parked entry moves to rejected (rule 11), its largest shape', () => {
      // Prepare: OrderDeleted at the next sequence, then the drain rejects the 1,000 parked entries one by one
      const deleted: Entry = {
        entryId: s.entryId(lastSequence + 1),
        orderId: s.orderId,
        sequence: lastSequence + 1,
        type: 'OrderDeleted',
        data: {},
      };
      let current = s.commit(order, deleted, 4 * ORDER_MAX_TRANSACTIONS).order;
      let last: ReturnType<typeof s.drain> | undefined;
      // Act
      for (const entry of parked) {
        last = s.drain(current, entry, 0);
        current = { doc: last.write.order.doc, etag: current.etag };
      }
      // Assess: each rejection only adds to the document, so the last batch is the largest
      expect(last?.decided.kind).toBe('reject');
      expect(current.doc).toMatchObject({ parked: [], state: { status: 'deleted' } });
      expect(current.doc.rejected).toHaveLength(ORDER_MAX_PARKED);
      const details = recordOf(last!.write);
      expect(details?.status).toBe('rejected');
      Object.assign(measured, {
        deletedOrder: storedBytes(current.doc),
        deletedBatch: batchBytes(last!.write),
        rejectedDocument: storedBytes(details),
      });
      expect(measured.deletedOrder).toBeLessThan(COSMOS_MAX_ITEM_BYTES);
      expect(measured.deletedBatch).toBeLessThan(COSMOS_MAX_BATCH_BYTES);
      expect(bytes(appliedOf(s.commit(order, deleted, 4 * ORDER_MAX_TRANSACTIONS).write).event)).toBeLessThan(
        EVENT_MAX_BYTES,
      );
      expect(details && 'entry' in details && details.entry).toEqual(parked.at(-1)!.doc.entry);
      expect(measured.rejectedDocument).toBeLessThan(COSMOS_MAX_ITEM_BYTES);
    });

    it('keeps the message ids within the Service Bus limit', () => {
      // Assess: the event key and `<entryId>:<hash16>` stay within 128 characters
      expect(outboundEvent(appliedOf(s.commit(undefined, s.created, 0).write)).messageId).toMatch(/^evt-[0-9a-f]{32}$/);
      expect(entryMessageId(s.entryId(1), requestHash(s.created)).length).toBeLessThanOrEqual(128);
    });
  },
);

afterAll(() => {
  // The figures, for docs/contracts.md and whoever changes a bound.
  process.stdout.write(`order sizes (bytes): ${JSON.stringify(figures)}\n`);
});
