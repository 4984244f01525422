import { DeadLetterReason } from '../../../src/core/deadLetterReasons.js';
import { added, amended, created, deleted, edit } from '../support/entries.js';
import { asBytes, asObject, asText } from '../support/rawMessages.js';
import type { RawBody } from '../support/rawMessages.js';
import type { EntryCase, EntryScenario } from './entryCase.js';

const { SchemaValidationFailed, SequenceConflict, IdempotencyKeyConflict, InvalidTransition } = DeadLetterReason;

/** Created, then `bad` (which holds no sequence of the order), then sequence 2, which must apply at once. */
function between(orderId: string, bad: RawBody): EntryScenario {
  return { before: [created(orderId)], bad: [{ body: bad }], behind: [added(orderId, 2, 't-1', 700)] };
}

const appliedTwo = {
  status: 'open',
  lastSequence: 2,
  total: 700,
  transactions: [{ transactionId: 't-1', amount: 700 }],
};

/** A malformed sequence-2 entry with its own entryId, so it cannot be mistaken for the real one. */
const stray = (orderId: string, changes: Record<string, unknown>) =>
  asObject(edit(added(orderId, 2, 't-1', 700), { entryId: `${orderId}-x`, ...changes }));

/**
 * Bad messages that hold nothing (rule 10): the sequence cannot be read, the body names another order than its
 * session, or the conflict is on a sequence already applied or parked for another entry. The order goes on. Last,
 * entries after `OrderDeleted`: the order has ended, so each is dead-lettered and nothing waits.
 */
export const holdingNothingCases: EntryCase[] = [
  {
    name: 'bytes that are not JSON',
    build: (o) => between(o, asBytes('{ "entryId": ')),
    reason: SchemaValidationFailed,
    description: /^The body is not valid JSON$/,
    holds: false,
    final: appliedTwo,
  },
  {
    name: 'a string body that is not JSON',
    build: (o) => between(o, asText('hello, ledger')),
    reason: SchemaValidationFailed,
    description: /^The body is not valid JSON$/,
    holds: false,
    final: appliedTwo,
  },
  {
    name: 'bytes that are not UTF-8',
    build: (o) => between(o, asBytes(new Uint8Array([0x7b, 0xc3, 0x28, 0x7d]))),
    reason: SchemaValidationFailed,
    description: /^The body is not UTF-8 text$/,
    holds: false,
    final: appliedTwo,
  },
  {
    name: 'an empty body',
    build: (o) => between(o, asBytes('')),
    reason: SchemaValidationFailed,
    description: /^The body is not valid JSON$/,
    holds: false,
    final: appliedTwo,
  },
  {
    name: 'JSON that is an array, not an entry',
    build: (o) => between(o, asText('[1, 2, 3]')),
    reason: SchemaValidationFailed,
    description: /expected object, received array/,
    holds: false,
    final: appliedTwo,
  },
  {
    name: 'a missing sequence',
    build: (o) => between(o, stray(o, { sequence: undefined })),
    reason: SchemaValidationFailed,
    description: /^sequence: .*expected (int|number), received undefined/,
    holds: false,
    final: appliedTwo,
  },
  {
    name: 'sequence zero',
    build: (o) => between(o, stray(o, { sequence: 0 })),
    reason: SchemaValidationFailed,
    description: /^sequence: Too small: expected number to be >=1$/,
    holds: false,
    final: appliedTwo,
  },
  {
    name: 'a negative sequence',
    build: (o) => between(o, stray(o, { sequence: -2 })),
    reason: SchemaValidationFailed,
    description: /^sequence: Too small/,
    holds: false,
    final: appliedTwo,
  },
  {
    name: 'a fractional sequence',
    build: (o) => between(o, stray(o, { sequence: 1.5 })),
    reason: SchemaValidationFailed,
    description: /^sequence: .*expected int/,
    holds: false,
    final: appliedTwo,
  },
  {
    name: 'a sequence given as a string',
    build: (o) => between(o, stray(o, { sequence: '2' })),
    reason: SchemaValidationFailed,
    description: /^sequence: .*expected (int|number), received string/,
    holds: false,
    final: appliedTwo,
  },
  {
    name: 'a body naming another order than its session',
    build: (o) => ({ ...between(o, asObject(created(`${o}-other`))), absent: [`${o}-other`] }),
    reason: SchemaValidationFailed,
    description: /^orderId o-[\w-]+-other differs from the session o-/,
    holds: false,
    final: appliedTwo,
  },
  {
    name: 'an orderId over 128 characters',
    build: (o) => between(o, stray(o, { orderId: `${o}-${'x'.repeat(128)}` })),
    reason: SchemaValidationFailed,
    description: /^orderId: Too big: expected string to have <=128 characters$/,
    holds: false,
    final: appliedTwo,
  },
  {
    name: 'another entryId at an applied sequence',
    build: (o) => ({
      before: [created(o), added(o, 2, 't-1', 100)],
      bad: [{ body: asObject(edit(added(o, 2, 't-1', 100), { entryId: `${o}-x` })) }],
      behind: [added(o, 3, 't-2', 50)],
    }),
    reason: SequenceConflict,
    description: /^sequence 2 of order o-[\w-]+ was already applied from (another entry|entry o-[\w-]+-2)$/,
    holds: false,
    final: { lastSequence: 3, total: 150 },
  },
  {
    name: 'an entryId reused with another body at an applied sequence',
    build: (o) => ({
      before: [created(o), added(o, 2, 't-1', 100)],
      bad: [{ body: asObject(added(o, 2, 't-1', 999)) }],
      behind: [added(o, 3, 't-2', 50)],
    }),
    reason: IdempotencyKeyConflict,
    description: /^entryId o-[\w-]+-2 was seen with other content: the applied entry at sequence 2 has another hash$/,
    holds: false,
    final: {
      lastSequence: 3,
      total: 150,
      transactions: [
        { transactionId: 't-1', amount: 100 },
        { transactionId: 't-2', amount: 50 },
      ],
    },
  },
  {
    name: 'an entryId reused with another body while its entry is parked',
    build: (o) => ({
      before: [created(o), added(o, 3, 't-2', 50)],
      bad: [{ body: asObject(added(o, 3, 't-2', 999)) }],
      behind: [added(o, 2, 't-1', 100)],
      outcomes: ['applied', 'parked', 'deadLettered', 'applied'],
    }),
    reason: IdempotencyKeyConflict,
    description: /^entryId o-[\w-]+-3 was seen with other content: the parked entry at sequence 3 has another hash$/,
    holds: false,
    final: {
      lastSequence: 3,
      total: 150,
      transactions: [
        { transactionId: 't-1', amount: 100 },
        { transactionId: 't-2', amount: 50 },
      ],
    },
  },
  {
    name: 'another entryId at a parked sequence',
    build: (o) => ({
      before: [created(o), added(o, 3, 't-2', 50)],
      bad: [{ body: asObject(edit(added(o, 3, 't-9', 5), { entryId: `${o}-x` })) }],
      behind: [added(o, 2, 't-1', 100)],
      outcomes: ['applied', 'parked', 'deadLettered', 'applied'],
    }),
    reason: SequenceConflict,
    description: /^sequence 3 of order o-[\w-]+ is parked for entry o-[\w-]+-3$/,
    holds: false,
    final: { lastSequence: 3, total: 150 },
  },
  // The order has ended: there is nothing left to hold, and nothing behind can ever apply.
  {
    name: 'entries after OrderDeleted (nothing may follow it)',
    build: (o) => ({
      before: [created(o), added(o, 2, 't-1', 100), deleted(o, 3)],
      bad: [{ body: asObject(added(o, 4, 't-2', 5)) }, { body: asObject(amended(o, 5, 't-1', 1)) }],
      behind: [],
    }),
    reason: InvalidTransition,
    description: /^Order o-[\w-]+ is deleted; Transaction(Added|Amended) at sequence [45] cannot follow OrderDeleted$/,
    holds: false,
    final: { status: 'deleted', lastSequence: 3, total: 100, transactions: [{ transactionId: 't-1', amount: 100 }] },
  },
];
