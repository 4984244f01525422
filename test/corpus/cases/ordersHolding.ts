import { DeadLetterReason } from '../../../src/core/deadLetterReasons.js';
import { added, amended, created, edit } from '../support/entries.js';
import type { EntryBody } from '../support/entries.js';
import { asObject, asText } from '../support/rawMessages.js';
import type { RawBody } from '../support/rawMessages.js';
import type { EntryCase, EntryScenario } from './entryCase.js';

const { SchemaValidationFailed, InvalidTransition } = DeadLetterReason;

/**
 * Created, then a broken sequence 2, then sequences 3 and 4 (which park behind it), then the corrected sequence 2
 * (`t-1` for 1,250), which releases them.
 */
function brokenSecond(orderId: string, bad: RawBody): EntryScenario {
  return {
    before: [created(orderId)],
    bad: [{ body: bad }],
    behind: [added(orderId, 3, 't-2', 100), amended(orderId, 4, 't-2', 120)],
    correction: added(orderId, 2, 't-1', 1250),
  };
}

const second = (orderId: string) => added(orderId, 2, 't-1', 1250);
const broken = (orderId: string, changes: Record<string, unknown>) => asObject(edit(second(orderId), changes));
const brokenData = (orderId: string, data: Record<string, unknown>) =>
  broken(orderId, { data: { ...second(orderId).data, ...data } });

const releasedSecond = {
  status: 'open',
  lastSequence: 4,
  total: 1370,
  transactions: [
    { transactionId: 't-1', amount: 1250 },
    { transactionId: 't-2', amount: 120 },
  ],
};

/** A broken or impossible sequence 1, with sequence 2 parked behind it on a pending order. */
function brokenFirst(orderId: string, bad: EntryBody): EntryScenario {
  return {
    before: [],
    bad: [{ body: asObject(bad) }],
    behind: [added(orderId, 2, 't-1', 40)],
    correction: created(orderId),
  };
}

const releasedFirst = { status: 'open', customerId: 'c-1', currency: 'EUR', lastSequence: 2, total: 40 };

/**
 * Bad messages that hold their order (rule 10): their sequence is readable and not yet applied, so later entries
 * park behind them until the operator resubmits a corrected entry with that sequence.
 */
export const holdingCases: EntryCase[] = [
  {
    name: 'a fractional amount (no floats for money)',
    build: (o) => brokenSecond(o, brokenData(o, { amount: 12.5 })),
    reason: SchemaValidationFailed,
    description: /^data\.amount: .*expected int, received number$/,
    holds: true,
    final: releasedSecond,
  },
  {
    name: 'an amount given as a string',
    build: (o) => brokenSecond(o, brokenData(o, { amount: '1250' })),
    reason: SchemaValidationFailed,
    description: /^data\.amount: .*expected (int|number), received string$/,
    holds: true,
    final: releasedSecond,
  },
  {
    name: 'an amount beyond the safe integer range',
    build: (o) => brokenSecond(o, asText(JSON.stringify(second(o)).replace('1250', '9007199254740993'))),
    reason: SchemaValidationFailed,
    description: /^data\.amount: /,
    holds: true,
    final: releasedSecond,
  },
  {
    name: 'an unknown property in data (strict schema)',
    build: (o) => brokenSecond(o, brokenData(o, { note: 'late fee' })),
    reason: SchemaValidationFailed,
    description: /^data\.note: Unknown property$/,
    holds: true,
    final: releasedSecond,
  },
  {
    name: 'an unknown property on the entry (strict schema)',
    build: (o) => brokenSecond(o, broken(o, { source: 'pos-7' })),
    reason: SchemaValidationFailed,
    description: /^source: Unknown property$/,
    holds: true,
    final: releasedSecond,
  },
  {
    name: 'an unknown entry type',
    build: (o) => brokenSecond(o, broken(o, { type: 'TransactionRefunded' })),
    reason: SchemaValidationFailed,
    description: /^type: /,
    holds: true,
    final: releasedSecond,
  },
  {
    name: 'a missing entryId',
    build: (o) => brokenSecond(o, broken(o, { entryId: undefined })),
    reason: SchemaValidationFailed,
    description: /^entryId: .*expected string, received undefined$/,
    holds: true,
    final: releasedSecond,
  },
  {
    name: 'an entryId over 100 characters',
    build: (o) => brokenSecond(o, broken(o, { entryId: 'e'.repeat(101) })),
    reason: SchemaValidationFailed,
    description: /^entryId: Too big: expected string to have <=100 characters$/,
    holds: true,
    final: releasedSecond,
  },
  {
    name: 'an entryId outside [A-Za-z0-9._-]',
    build: (o) => brokenSecond(o, broken(o, { entryId: `${o}/2 bis` })),
    reason: SchemaValidationFailed,
    description: /^entryId: Only letters, digits, "\.", "_" and "-" are allowed$/,
    holds: true,
    final: releasedSecond,
  },
  {
    name: 'a missing orderId',
    build: (o) => brokenSecond(o, broken(o, { orderId: undefined })),
    reason: SchemaValidationFailed,
    description: /^orderId: .*expected string, received undefined$/,
    holds: true,
    final: releasedSecond,
  },
  {
    name: 'missing data',
    build: (o) => brokenSecond(o, broken(o, { data: undefined })),
    reason: SchemaValidationFailed,
    description: /^data: .*expected object, received undefined$/,
    holds: true,
    final: releasedSecond,
  },
  {
    name: 'a transactionId over 100 bytes',
    build: (o) => brokenSecond(o, brokenData(o, { transactionId: 't'.repeat(101) })),
    reason: SchemaValidationFailed,
    description: /^data\.transactionId: Is 101 bytes in UTF-8; at most 100 bytes are allowed$/,
    holds: true,
    final: releasedSecond,
  },
  {
    // 34 characters, 102 bytes: the bound is in bytes because the limits it protects are.
    name: 'a transactionId of 34 "€" (102 bytes)',
    build: (o) => brokenSecond(o, brokenData(o, { transactionId: '€'.repeat(34) })),
    reason: SchemaValidationFailed,
    description: /^data\.transactionId: Is 102 bytes in UTF-8; at most 100 bytes are allowed$/,
    holds: true,
    final: releasedSecond,
  },
  {
    name: 'a transactionId with a control character',
    build: (o) => brokenSecond(o, brokenData(o, { transactionId: 't\u0007-1' })),
    reason: SchemaValidationFailed,
    description: /^data\.transactionId: Contains a control character/,
    holds: true,
    final: releasedSecond,
  },
  {
    name: 'a currency that is not three upper-case letters at sequence 1',
    build: (o) => brokenFirst(o, created(o, 1, { customerId: 'c-1', currency: 'EURO' })),
    reason: SchemaValidationFailed,
    description: /^data\.currency: Expected three upper-case letters \(ISO 4217\), such as EUR$/,
    holds: true,
    final: releasedFirst,
  },
  {
    name: 'a customerId of the wrong type at sequence 1',
    build: (o) => brokenFirst(o, created(o, 1, { customerId: 7, currency: 'EUR' })),
    reason: SchemaValidationFailed,
    description: /^data\.customerId: .*expected string, received number$/,
    holds: true,
    final: releasedFirst,
  },
  {
    name: 'something other than OrderCreated at sequence 1',
    build: (o) => brokenFirst(o, added(o, 1, 't-0', 5)),
    reason: InvalidTransition,
    description: /^Sequence 1 of order o-[\w-]+ must be OrderCreated, not TransactionAdded$/,
    holds: true,
    final: releasedFirst,
  },
  {
    name: 'a duplicate OrderCreated',
    build: (o) => brokenSecond(o, asObject(created(o, 2))),
    reason: InvalidTransition,
    description: /^Order o-[\w-]+ already exists; OrderCreated cannot come twice$/,
    holds: true,
    final: releasedSecond,
  },
  {
    name: 'an amend of an unknown transaction',
    build: (o) => brokenSecond(o, asObject(amended(o, 2, 't-9', 400))),
    reason: InvalidTransition,
    description: /^Transaction t-9 does not exist in order o-/,
    holds: true,
    final: releasedSecond,
  },
  {
    name: 'an add of an existing transactionId',
    build: (o) => ({
      before: [created(o), added(o, 2, 't-1', 100)],
      bad: [{ body: asObject(added(o, 3, 't-1', 200)) }],
      behind: [amended(o, 4, 't-1', 150)],
      correction: added(o, 3, 't-2', 200),
    }),
    reason: InvalidTransition,
    description: /^Transaction t-1 already exists in order o-/,
    holds: true,
    final: {
      lastSequence: 4,
      total: 350,
      transactions: [
        { transactionId: 't-1', amount: 150 },
        { transactionId: 't-2', amount: 200 },
      ],
    },
  },
];
