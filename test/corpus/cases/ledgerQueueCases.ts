import type { DeadLetterReason } from '../../../src/core/deadLetterReasons.js';
import { added, created, edit } from '../support/entries.js';
import { asBytes, asObject, asText } from '../support/rawMessages.js';
import type { RawBody } from '../support/rawMessages.js';

/** What the splitter must do: dead-letter the whole ledger, or fan out this many entries. */
export type SplitExpectation = { reason: DeadLetterReason; description: RegExp } | { fannedOut: number };

/** A corpus row for a ledger message sent straight to the `ledger` queue (bypassing `POST /api/ledgers`). */
export interface LedgerQueueCase {
  name: string;
  body(ledgerId: string, orderId: string): RawBody;
  expect: SplitExpectation;
}

const entries = (o: string) => [created(o), added(o, 2, 't-1', 300), added(o, 3, 't-2', -100)];
const ledger = (ledgerId: string, list: unknown[]) => ({ ledgerId, entries: list });
const failed = (description: RegExp): SplitExpectation => ({ reason: 'SchemaValidationFailed', description });

/**
 * Ledger messages the splitter must dead-letter whole as `SchemaValidationFailed`, with the issues as description
 * (rule 9), and valid ones in each body shape a host may deliver, which it must fan out.
 */
export const ledgerQueueCases: LedgerQueueCase[] = [
  {
    name: 'bytes that are not JSON',
    body: () => asBytes('{ "ledgerId": '),
    expect: failed(/^The body is not valid JSON$/),
  },
  {
    name: 'a string that is not JSON',
    body: () => asText('ledger L-1, 3 entries'),
    expect: failed(/^The body is not valid JSON$/),
  },
  {
    name: 'bytes that are not UTF-8',
    body: () => asBytes(new Uint8Array([0x7b, 0xff, 0x7d])),
    expect: failed(/^The body is not UTF-8 text$/),
  },
  {
    name: 'a JSON array',
    body: (l, o) => asObject(entries(o).map((e) => ({ ...e, ledgerId: l }))),
    expect: failed(/expected object, received array/),
  },
  { name: 'a missing ledgerId', body: (_l, o) => asObject({ entries: entries(o) }), expect: failed(/^ledgerId: /) },
  { name: 'an empty ledger', body: (l) => asObject(ledger(l, [])), expect: failed(/^entries: Too small/) },
  {
    name: 'a repeated entryId',
    body: (l, o) => asObject(ledger(l, [created(o), edit(added(o, 2, 't-1', 1), { entryId: `${o}-1` })])),
    expect: failed(/^entries\[1\]\.entryId: Repeats entries\[0\]\.entryId$/),
  },
  {
    name: 'a repeated (orderId, sequence)',
    body: (l, o) =>
      asObject(ledger(l, [created(o), added(o, 2, 't-1', 1), edit(added(o, 2, 't-2', 2), { entryId: `${o}-2b` })])),
    expect: failed(/^entries\[2\]\.sequence: Repeats sequence 2 of order o-[\w-]+ \(entries\[1\]\)$/),
  },
  {
    name: 'a decreasing sequence within an order',
    body: (l, o) => asObject(ledger(l, [created(o), added(o, 3, 't-2', 2), added(o, 2, 't-1', 1)])),
    expect: failed(/^entries\[2\]\.sequence: Order o-[\w-]+ goes back from sequence 3 \(entries\[1\]\) to 2$/),
  },
  {
    name: 'an unknown entry type',
    body: (l, o) => asObject(ledger(l, [created(o), edit(added(o, 2, 't-1', 1), { type: 'OrderShipped' })])),
    expect: failed(/^entries\[1\]\.type: /),
  },
  {
    name: 'an unknown property (strict schema)',
    body: (l, o) => asObject(ledger(l, [edit(created(o), { data: { customerId: 'c', currency: 'EUR', vip: true } })])),
    expect: failed(/^entries\[0\]\.data\.vip: Unknown property$/),
  },
  {
    name: 'a fractional amount and a zero sequence, both reported',
    body: (l, o) => asObject(ledger(l, [edit(created(o), { sequence: 0 }), added(o, 2, 't-1', 9.99)])),
    expect: failed(/^entries\[0\]\.sequence: Too small.*; entries\[1\]\.data\.amount: .*expected int/),
  },
  { name: 'a valid ledger as an object', body: (l, o) => asObject(ledger(l, entries(o))), expect: { fannedOut: 3 } },
  {
    name: 'a valid ledger as a string',
    body: (l, o) => asText(JSON.stringify(ledger(l, entries(o)))),
    expect: { fannedOut: 3 },
  },
  {
    name: 'a valid ledger as bytes',
    body: (l, o) => asBytes(JSON.stringify(ledger(l, entries(o)))),
    expect: { fannedOut: 3 },
  },
];
