import { added, amended, created, deleted, edit } from '../support/entries.js';
import type { EntryBody } from '../support/entries.js';

/** What `POST /api/ledgers` must answer. */
export type HttpExpectation = { status: 400; paths: string[] } | { status: 413 } | { status: 202 };

/** A corpus row for `POST /api/ledgers`: the raw request body (text or bytes), extra headers, and the answer. */
export interface HttpCase {
  name: string;
  body: string | Uint8Array;
  headers?: Record<string, string>;
  expect: HttpExpectation;
}

const o = 'o-http';
/** A valid three-entry order to break. */
const valid: EntryBody[] = [created(o), added(o, 2, 't-1', 1250), amended(o, 3, 't-1', 1100)];
const json = (value: unknown) => JSON.stringify(value);
const ledger = (entries: unknown[], extra: Record<string, unknown> = {}) =>
  json({ ledgerId: 'L-http', entries, ...extra });
/** The valid entries with entry `index` edited. */
const withEntry = (index: number, changes: Record<string, unknown>) =>
  ledger(valid.map((e, i) => (i === index ? edit(e, changes) : e)));
const withData = (index: number, data: Record<string, unknown>) =>
  withEntry(index, { data: { ...valid[index]!.data, ...data } });
const bad = (...paths: string[]): HttpExpectation => ({ status: 400, paths });

/** About 100 bytes per entry: 5,001 of them are far beyond the byte limit, which is checked first. */
const manyEntries = Array.from({ length: 5_001 }, (_, i) =>
  added(`o-many-${i % 7}`, Math.floor(i / 7) + 1, `t-${i}`, i),
);

/**
 * Invalid and oversize bodies for `POST /api/ledgers`: 400 `SchemaValidationFailed` with each issue's `path`
 * (empty for the whole body), or 413 above 262,144 bytes. Nothing of any of them may reach the `ledger` queue.
 */
export const httpCases: HttpCase[] = [
  { name: 'text that is not JSON', body: '{ "ledgerId": "L-http", ', expect: bad('') },
  { name: 'an empty body', body: '', expect: bad('') },
  { name: 'bytes that are not UTF-8', body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), expect: bad('') },
  { name: 'JSON null', body: 'null', expect: bad('') },
  { name: 'a JSON array instead of a ledger', body: json([valid]), expect: bad('') },
  { name: 'a ledgerId that is a number', body: json({ ledgerId: 42, entries: valid }), expect: bad('ledgerId') },
  { name: 'a missing ledgerId', body: json({ entries: valid }), expect: bad('ledgerId') },
  {
    name: 'a ledgerId over 128 characters',
    body: json({ ledgerId: 'L'.repeat(129), entries: valid }),
    expect: bad('ledgerId'),
  },
  {
    name: 'entries that are an object',
    body: json({ ledgerId: 'L-http', entries: { 0: valid[0] } }),
    expect: bad('entries'),
  },
  { name: 'an empty ledger', body: ledger([]), expect: bad('entries') },
  { name: 'a missing entryId', body: withEntry(1, { entryId: undefined }), expect: bad('entries[1].entryId') },
  { name: 'a missing orderId', body: withEntry(0, { orderId: undefined }), expect: bad('entries[0].orderId') },
  { name: 'an empty orderId', body: withEntry(2, { orderId: '' }), expect: bad('entries[2].orderId') },
  {
    name: 'an orderId over 128 characters',
    body: withEntry(0, { orderId: 'o'.repeat(129) }),
    expect: bad('entries[0].orderId'),
  },
  {
    name: 'an entryId over 100 characters',
    body: withEntry(1, { entryId: 'e'.repeat(101) }),
    expect: bad('entries[1].entryId'),
  },
  {
    name: 'an entryId outside [A-Za-z0-9._-]',
    body: withEntry(1, { entryId: 'e 1/2' }),
    expect: bad('entries[1].entryId'),
  },
  { name: 'an entryId that is a number', body: withEntry(1, { entryId: 7 }), expect: bad('entries[1].entryId') },
  {
    name: 'an unknown entry type',
    body: withEntry(2, { type: 'TransactionRefunded' }),
    expect: bad('entries[2].type'),
  },
  { name: 'sequence zero', body: withEntry(0, { sequence: 0 }), expect: bad('entries[0].sequence') },
  { name: 'a negative sequence', body: withEntry(1, { sequence: -2 }), expect: bad('entries[1].sequence') },
  { name: 'a fractional sequence', body: withEntry(1, { sequence: 1.5 }), expect: bad('entries[1].sequence') },
  { name: 'a sequence given as a string', body: withEntry(1, { sequence: '2' }), expect: bad('entries[1].sequence') },
  { name: 'a fractional amount', body: withData(1, { amount: 12.5 }), expect: bad('entries[1].data.amount') },
  { name: 'an amount given as a string', body: withData(2, { amount: '1100' }), expect: bad('entries[2].data.amount') },
  {
    name: 'an amount beyond the safe integer range',
    body: withEntry(1, {}).replace('1250', '9007199254740993'),
    expect: bad('entries[1].data.amount'),
  },
  {
    name: 'a customerId that is a number',
    body: withData(0, { customerId: 9 }),
    expect: bad('entries[0].data.customerId'),
  },
  {
    name: 'a customerId over 100 bytes',
    body: withData(0, { customerId: 'c'.repeat(101) }),
    expect: bad('entries[0].data.customerId'),
  },
  { name: 'a lower-case currency', body: withData(0, { currency: 'eur' }), expect: bad('entries[0].data.currency') },
  {
    name: 'a customerId of 34 "€" (102 bytes)',
    body: withData(0, { customerId: '€'.repeat(34) }),
    expect: bad('entries[0].data.customerId'),
  },
  {
    name: 'a transactionId over 100 bytes',
    body: withData(1, { transactionId: 't'.repeat(101) }),
    expect: bad('entries[1].data.transactionId'),
  },
  { name: 'missing data', body: withEntry(0, { data: undefined }), expect: bad('entries[0].data') },
  { name: 'an unknown property on an entry', body: withEntry(0, { note: 'x' }), expect: bad('entries[0].note') },
  { name: 'an unknown property in data', body: withData(1, { note: 'x' }), expect: bad('entries[1].data.note') },
  { name: 'an unknown property on the ledger', body: ledger(valid, { source: 'pos-7' }), expect: bad('source') },
  {
    name: 'OrderDeleted carrying data',
    body: ledger([...valid, { ...deleted(o, 4), data: { reason: 'x' } }]),
    expect: bad('entries[3].data.reason'),
  },
  {
    name: 'a repeated entryId',
    body: ledger([valid[0], valid[1], { ...valid[2], entryId: valid[1]!.entryId }]),
    expect: bad('entries[2].entryId'),
  },
  {
    name: 'a repeated (orderId, sequence)',
    body: ledger([valid[0], valid[1], { ...valid[2], sequence: 2 }]),
    expect: bad('entries[2].sequence'),
  },
  {
    name: 'a decreasing sequence within an order',
    body: ledger([valid[0], valid[2], valid[1]]),
    expect: bad('entries[2].sequence'),
  },
  {
    name: 'every issue at once, each at its path',
    body: ledger([edit(valid[0]!, { sequence: 0 }), edit(valid[1]!, { data: { transactionId: 't-1', amount: 0.5 } })]),
    expect: bad('entries[0].sequence', 'entries[1].data.amount'),
  },
  { name: 'a body over 262,144 bytes', body: ledger(valid, { pad: 'x'.repeat(262_144) }), expect: { status: 413 } },
  {
    name: 'a Content-Length over 262,144 bytes',
    body: ledger(valid),
    headers: { 'content-length': '262145' },
    expect: { status: 413 },
  },
  { name: 'a ledger of 5,001 entries', body: ledger(manyEntries), expect: { status: 413 } },
];

/** A ledger that must be accepted, the control row: the checks above could not fail if nothing ever got through. */
export function acceptedLedger(ledgerId: string, orderId: string): string {
  return json({ ledgerId, entries: [created(orderId), added(orderId, 2, 't-1', 5)] });
}
