import { describe, expect, it } from 'vitest';
import { exceedsLedgerByteLimit, ledgerSchema, normaliseBody, validateEntry } from '../../src/core/index.js';
import { LEDGER_MAX_BYTES } from '../../src/core/schemas/limits.js';
import { bodyByteLength } from '../../src/core/schemas/body.js';
import { formatPath, toValidationIssues } from '../../src/core/schemas/issues.js';
import { validateLedger } from '../../src/core/schemas/ledger.js';
import { entriesFor } from './support/fixtures.js';

const e = entriesFor('o-1');
const ledgerOf = (entries: unknown[]) => ({ ledgerId: 'L-0001', entries });

function issuesOf(result: ReturnType<typeof validateLedger> | ReturnType<typeof validateEntry>) {
  return result.ok ? [] : result.issues;
}

describe('entry schema', () => {
  it('accepts the four entry types of the contract', () => {
    // Prepare
    const entries = [
      e.created(),
      e.added(2, 't-1', 1250),
      e.amended(3, 't-1', -1100),
      e.added(4, 't-2', 0),
      e.deleted(5),
    ];
    // Act
    const results = entries.map((entry) => validateEntry(entry));
    // Assess
    expect(results.every((r) => r.ok)).toBe(true);
  });

  it.each([
    ['a float amount', { ...e.added(2, 't', 1), data: { transactionId: 't', amount: 12.5 } }, 'data.amount'],
    [
      'an amount beyond the safe integers',
      { ...e.added(2, 't', 1), data: { transactionId: 't', amount: 2 ** 53 } },
      'data.amount',
    ],
    ['an amount as a string', { ...e.added(2, 't', 1), data: { transactionId: 't', amount: '12' } }, 'data.amount'],
    ['sequence 0', { ...e.created(), sequence: 0 }, 'sequence'],
    ['a fractional sequence', { ...e.created(), sequence: 1.5 }, 'sequence'],
    ['an entryId with a slash', { ...e.created(), entryId: 'a/b' }, 'entryId'],
    ['an entryId of 101 characters', { ...e.created(), entryId: 'x'.repeat(101) }, 'entryId'],
    ['an empty entryId', { ...e.created(), entryId: '' }, 'entryId'],
    ['an orderId of 129 characters', { ...e.created(), orderId: 'o'.repeat(129) }, 'orderId'],
    ['an unknown property', { ...e.created(), note: 'x' }, 'note'],
    ['an unknown data property', { ...e.deleted(2), data: { reason: 'x' } }, 'data.reason'],
    ['an unknown type', { ...e.created(), type: 'OrderShipped' }, 'type'],
    ['an empty currency', { ...e.created(), data: { customerId: 'c', currency: '' } }, 'data.currency'],
    ['an empty customerId', { ...e.created(), data: { customerId: '', currency: 'EUR' } }, 'data.customerId'],
    ['an empty transactionId', { ...e.added(2, '', 1) }, 'data.transactionId'],
    ['a transactionId of 101 bytes', { ...e.added(2, 't'.repeat(101), 1) }, 'data.transactionId'],
    ['a transactionId of 34 "€" (102 bytes)', { ...e.added(2, '€'.repeat(34), 1) }, 'data.transactionId'],
    ['a transactionId of 26 emoji (104 bytes)', { ...e.added(2, '😀'.repeat(26), 1) }, 'data.transactionId'],
    ['a transactionId with a control character', { ...e.added(2, 't\u0007', 1) }, 'data.transactionId'],
    ['a transactionId with a C1 control character', { ...e.added(2, 't\u0085', 1) }, 'data.transactionId'],
    ['a transactionId with a lone surrogate', { ...e.added(2, 't\ud83d', 1) }, 'data.transactionId'],
    ['an empty amended transactionId', { ...e.amended(2, '', 1) }, 'data.transactionId'],
    ['an amended transactionId with a lone surrogate', { ...e.amended(2, 't\ud83d', 1) }, 'data.transactionId'],
    [
      'a customerId of 101 bytes',
      { ...e.created(), data: { customerId: 'c'.repeat(101), currency: 'EUR' } },
      'data.customerId',
    ],
    [
      'a customerId of 51 "ä" (102 bytes)',
      { ...e.created(), data: { customerId: 'ä'.repeat(51), currency: 'EUR' } },
      'data.customerId',
    ],
    [
      'a customerId with a newline',
      { ...e.created(), data: { customerId: 'c\n', currency: 'EUR' } },
      'data.customerId',
    ],
    ['an orderId with a lone surrogate', { ...e.created(), orderId: 'o\udc00' }, 'orderId'],
    ['a lower-case currency', { ...e.created(), data: { customerId: 'c', currency: 'eur' } }, 'data.currency'],
    ['a four-letter currency', { ...e.created(), data: { customerId: 'c', currency: 'EURO' } }, 'data.currency'],
    ['a currency of digits', { ...e.created(), data: { customerId: 'c', currency: '978' } }, 'data.currency'],
    [
      'a currency with a trailing newline',
      { ...e.created(), data: { customerId: 'c', currency: 'EUR\n' } },
      'data.currency',
    ],
    ['a missing data', { entryId: 'e', orderId: 'o', sequence: 1, type: 'OrderCreated' }, 'data'],
  ])('refuses %s at path "%s"', (_name, body, path) => {
    // Act
    const result = validateEntry(body);
    // Assess
    expect(issuesOf(result).map((i) => i.path)).toEqual([path]);
  });

  it('accepts a customerId and transactionId of 100 UTF-8 bytes in any script, and any three upper-case letters as currency', () => {
    // Prepare
    const created = { ...e.created(), data: { customerId: 'c'.repeat(100), currency: 'XTS' } };
    const added = e.added(2, 't'.repeat(100), 1);
    const euros = e.added(3, '€'.repeat(33) + 't', 1);
    const emoji = e.added(4, '😀'.repeat(25), 1);
    const quotes = e.added(5, '"\\'.repeat(50), 1);
    // Act
    const results = [created, added, euros, emoji, quotes].map((body) => validateEntry(body));
    // Assess
    expect(results.map((r) => r.ok)).toEqual([true, true, true, true, true]);
  });

  it('takes an amended transactionId of any length: the order holding it is rule 7, not the schema', () => {
    // Act
    const result = validateEntry(e.amended(2, '€'.repeat(34), 1));
    // Assess
    expect(result.ok).toBe(true);
  });

  it('says a transactionId is too long in bytes', () => {
    // Act
    const result = validateEntry(e.added(2, '€'.repeat(34), 1));
    // Assess
    expect(issuesOf(result)).toEqual([
      { path: 'data.transactionId', message: 'Is 102 bytes in UTF-8; at most 100 bytes are allowed' },
    ]);
  });

  it('accepts the longest allowed ids', () => {
    // Act
    const result = validateEntry({ ...e.created(), entryId: 'A-z.0_'.repeat(16) + 'abcd', orderId: 'o'.repeat(128) });
    // Assess
    expect(result.ok).toBe(true);
  });
});

describe('ledger schema (rule 9)', () => {
  it('accepts interleaved orders, each in increasing sequence', () => {
    // Prepare
    const f = entriesFor('o-2');
    // Act
    const result = validateLedger(ledgerOf([e.created(), f.created(), e.added(2, 't', 1), f.deleted(2)]));
    // Assess
    expect(result.ok).toBe(true);
  });

  it('reports the exact path of a bad entry deep in the ledger', () => {
    // Prepare
    const entries = [e.created(), e.added(2, 't', 1), e.added(3, 'u', 1), { ...e.added(4, 'v', 1), orderId: 7 }];
    // Act
    const result = validateLedger(ledgerOf(entries));
    // Assess
    expect(issuesOf(result)).toEqual([{ path: 'entries[3].orderId', message: expect.any(String) }]);
  });

  it('refuses a repeated entryId, naming the second one', () => {
    // Act
    const result = validateLedger(ledgerOf([e.created(), e.added(2, 't', 1, 'o-1-e1')]));
    // Assess
    expect(issuesOf(result)).toEqual([{ path: 'entries[1].entryId', message: 'Repeats entries[0].entryId' }]);
  });

  it('refuses a repeated (orderId, sequence)', () => {
    // Act
    const result = validateLedger(ledgerOf([e.created(), e.added(1, 't', 1, 'other')]));
    // Assess
    expect(issuesOf(result).map((i) => i.path)).toEqual(['entries[1].sequence']);
  });

  it('refuses an order whose entries go back in sequence, even when other orders lie between', () => {
    // Prepare
    const f = entriesFor('o-2');
    // Act
    const result = validateLedger(ledgerOf([e.added(3, 't', 1), f.created(), e.added(2, 'u', 1)]));
    // Assess
    expect(issuesOf(result).map((i) => i.path)).toEqual(['entries[2].sequence']);
  });

  it('refuses an empty ledger', () => {
    // Act
    const empty = validateLedger(ledgerOf([]));
    // Assess
    expect(issuesOf(empty).map((i) => i.path)).toEqual(['entries']);
  });

  it('holds 5,000 entries at most (the schema alone; in bytes such a ledger is already too large)', () => {
    // Prepare
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        entryId: `e${i}`,
        orderId: `o${i % 7}`,
        sequence: Math.floor(i / 7) + 1,
        type: 'OrderDeleted',
        data: {},
      }));
    // Act
    const atLimit = ledgerSchema.safeParse(ledgerOf(many(5000)));
    const overLimit = ledgerSchema.safeParse(ledgerOf(many(5001)));
    // Assess
    expect(atLimit.success).toBe(true);
    expect(overLimit.success ? [] : toValidationIssues(overLimit.error.issues).map((i) => i.path)).toEqual(['entries']);
  });

  it('reports the whole body with an empty path when it is not a ledger object or not JSON', () => {
    // Act
    const notObject = validateLedger([1, 2]);
    const notJson = validateLedger('{"ledgerId":');
    // Assess
    expect(issuesOf(notObject)).toEqual([{ path: '', message: expect.any(String) }]);
    expect(issuesOf(notJson)).toEqual([{ path: '', message: 'The body is not valid JSON' }]);
  });

  it('refuses a ledger above 262,144 bytes before parsing it', () => {
    // Prepare
    const big = JSON.stringify(ledgerOf([{ ...e.created(), pad: 'x'.repeat(LEDGER_MAX_BYTES) }]));
    // Act
    const result = validateLedger(big);
    // Assess
    expect(exceedsLedgerByteLimit(big)).toBe(true);
    expect(issuesOf(result)).toEqual([{ path: '', message: expect.stringContaining('262144') }]);
  });

  it('accepts a body of exactly 262,144 bytes as far as size goes', () => {
    // Prepare
    const text = 'x'.repeat(LEDGER_MAX_BYTES);
    // Act + Assess
    expect(exceedsLedgerByteLimit(text)).toBe(false);
    expect(exceedsLedgerByteLimit(text + 'x')).toBe(true);
  });
});

describe('body normalisation', () => {
  const value = { a: 1, b: 'é' };

  it.each([
    ['an object', value],
    ['a string', JSON.stringify(value)],
    ['a Buffer', Buffer.from(JSON.stringify(value))],
    ['a Uint8Array', new Uint8Array(Buffer.from(JSON.stringify(value)))],
    ['an ArrayBuffer', new Uint8Array(Buffer.from(JSON.stringify(value))).buffer],
    ['text with a byte-order mark', `\uFEFF${JSON.stringify(value)}`],
  ])('parses %s into the same value', (_name, body) => {
    // Act
    const result = normaliseBody(body);
    // Assess
    expect(result).toEqual({ ok: true, value });
  });

  it.each([
    ['text that is not JSON', 'hello'],
    ['bytes that are not UTF-8', Buffer.from([0xff, 0xfe, 0xfd])],
    ['no body', undefined],
  ])('refuses %s as not JSON', (_name, body) => {
    // Act
    const result = normaliseBody(body);
    // Assess
    expect(result.ok).toBe(false);
  });

  it('measures bodies in UTF-8 bytes', () => {
    // Act + Assess
    expect(bodyByteLength('é')).toBe(2);
    expect(bodyByteLength({ a: 'é' })).toBe(10);
    expect(bodyByteLength(Buffer.from('abc'))).toBe(3);
  });

  it('formats paths with brackets for indexes and dots for keys', () => {
    // Act + Assess
    expect(formatPath(['entries', 3, 'data', 'amount'])).toBe('entries[3].data.amount');
    expect(formatPath([])).toBe('');
    expect(formatPath([0, 'a'])).toBe('[0].a');
  });
});
