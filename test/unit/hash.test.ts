import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readResubmitCount, resubmission, validateEntry, type Entry } from '../../src/core/index.js';
import { entryMessageId, requestHash } from '../../src/core/hash.js';

const parse = (text: string): Entry => {
  const result = validateEntry(text);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.value;
};

describe('request hash', () => {
  it('is the SHA-256 hex of the RFC 8785 canonical form', () => {
    // Prepare
    const entry = parse('{"type":"OrderDeleted","sequence":4,"orderId":"o-1","entryId":"e-4","data":{}}');
    const canonical = '{"data":{},"entryId":"e-4","orderId":"o-1","sequence":4,"type":"OrderDeleted"}';
    // Act
    const hash = requestHash(entry);
    // Assess
    expect(hash).toBe(createHash('sha256').update(canonical).digest('hex'));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('ignores key order, whitespace, escapes and number spelling of the producer text', () => {
    // Prepare
    const a = parse(
      '{"entryId":"e-2","orderId":"o-1","sequence":2,"type":"TransactionAdded","data":{"transactionId":"t-é","amount":100}}',
    );
    const b = parse(
      ' { "data" : { "amount" : 1E2, "transactionId" : "t-\\u00e9" }, "type":"TransactionAdded", "sequence":2.0, "orderId":"o-1", "entryId":"e-2" } ',
    );
    // Act + Assess
    expect(requestHash(b)).toBe(requestHash(a));
  });

  it('does not normalise Unicode: composed and decomposed forms differ, as JCS specifies', () => {
    // Prepare
    const composed = parse(
      '{"entryId":"e-1","orderId":"o-1","sequence":1,"type":"OrderCreated","data":{"customerId":"caf\\u00e9","currency":"EUR"}}',
    );
    const decomposed = parse(
      '{"entryId":"e-1","orderId":"o-1","sequence":1,"type":"OrderCreated","data":{"customerId":"cafe\\u0301","currency":"EUR"}}',
    );
    // Act + Assess
    expect(requestHash(composed)).not.toBe(requestHash(decomposed));
  });

  it('changes with any value, so a reused entryId with other content is told apart', () => {
    // Prepare
    const base = parse(
      '{"entryId":"e-2","orderId":"o-1","sequence":2,"type":"TransactionAdded","data":{"transactionId":"t-1","amount":100}}',
    );
    // Act + Assess
    expect(requestHash({ ...base, data: { transactionId: 't-1', amount: 101 } } as Entry)).not.toBe(requestHash(base));
    expect(requestHash({ ...base, sequence: 3 })).not.toBe(requestHash(base));
  });
});

describe('message ids', () => {
  it('builds an order entry messageId from the entryId and the first 16 hex digits of the hash', () => {
    // Act + Assess
    expect(entryMessageId('e-1', '0123456789abcdef0123')).toBe('e-1:0123456789abcdef');
  });

  it('numbers a resubmission 1 + the highest resubmitCount seen for the entry, none seen = 0 (rule 10)', () => {
    // Act + Assess
    expect(resubmission('e-1', [])).toEqual({ messageId: 'e-1.r1', resubmitCount: 1 });
    expect(resubmission('e-1', [2])).toEqual({ messageId: 'e-1.r3', resubmitCount: 3 });
    // Several dead letters of the same entry (and a rejected record's count): the highest wins, wherever it is.
    expect(resubmission('e-1', [1, 4, 0, 2])).toEqual({ messageId: 'e-1.r5', resubmitCount: 5 });
    expect(resubmission('e-1', [0, 0])).toEqual({ messageId: 'e-1.r1', resubmitCount: 1 });
  });

  it('reads the resubmitCount application property, numeric strings too', () => {
    expect([undefined, {}, { resubmitCount: 2 }, { resubmitCount: '4' }].map((p) => readResubmitCount(p))).toEqual([
      0, 0, 2, 4,
    ]);
  });

  it('reads an unusable resubmitCount as none', () => {
    // Act + Assess
    expect([-1, 1.5, 'x', '', null, {}].map((v) => readResubmitCount({ resubmitCount: v }))).toEqual([
      0, 0, 0, 0, 0, 0,
    ]);
  });
});
