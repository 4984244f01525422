import { describe, expect, it } from 'vitest';
import { checkedCorrection, entryKey, highestResubmitCounts } from '../src/dlq/resubmission.js';
import { resubmission } from 'ledger-convoy/core';

const entry = {
  entryId: 'o-1-e4',
  orderId: 'o-1',
  sequence: 4,
  type: 'TransactionAdded',
  data: { transactionId: 't4', amount: 10 },
};
const identity = { entryId: 'o-1-e4', sequence: 4, sessionId: 'o-1' };

describe('numbering a resubmission (rule 10)', () => {
  it('counts on from the highest resubmitCount over all dead letters of the entry, not the one resubmitted', () => {
    // Prepare: o-1-e4 dead-lettered three times (the copies .r1 and .r3 failed again), plus other entries.
    const rows = [
      { sessionId: 'o-1', entryId: 'o-1-e4', resubmitCount: 1 },
      { sessionId: 'o-1', entryId: 'o-1-e4', resubmitCount: 3 },
      { sessionId: 'o-1', entryId: 'o-1-e4', resubmitCount: 0 },
      { sessionId: 'o-1', entryId: 'o-1-e5', resubmitCount: 7 },
      // The same entryId in another order is another entry: the inbox is per order.
      { sessionId: 'o-2', entryId: 'o-1-e4', resubmitCount: 9 },
    ];
    // Act
    const highest = highestResubmitCounts(rows);
    const next = resubmission('o-1-e4', [highest.get(entryKey('o-1', 'o-1-e4')) ?? 0, 0]);
    // Assess
    expect(next).toEqual({ messageId: 'o-1-e4.r4', resubmitCount: 4 });
    expect(highest.get(entryKey('o-2', 'o-1-e4'))).toBe(9);
  });

  it("takes a rejected record's count when it is the highest, and none seen anywhere as 0", () => {
    const rejectedRecordCount = 2;
    const deadLetters = highestResubmitCounts([{ sessionId: 'o-1', entryId: 'o-1-e4', resubmitCount: 1 }]);
    expect(resubmission('o-1-e4', [rejectedRecordCount, deadLetters.get(entryKey('o-1', 'o-1-e4')) ?? 0])).toEqual({
      messageId: 'o-1-e4.r3',
      resubmitCount: 3,
    });
    expect(resubmission('o-1-e4', [0, highestResubmitCounts([]).get(entryKey('o-1', 'o-1-e4')) ?? 0]).messageId).toBe(
      'o-1-e4.r1',
    );
  });
});

describe('checkedCorrection', () => {
  it('accepts a valid entry that keeps entryId, sequence and order, with any other content', () => {
    const corrected = { ...entry, type: 'TransactionAmended', data: { transactionId: 't1', amount: 5 } };
    expect(checkedCorrection(corrected, identity)).toEqual(corrected);
    // An original whose sequence could not be read lets the correction say it.
    expect(checkedCorrection({ ...entry, sequence: 9 }, { ...identity, sequence: undefined }).sequence).toBe(9);
  });

  it('refuses a correction that changes the entryId, the sequence or the order, naming each', () => {
    expect(() => checkedCorrection({ ...entry, entryId: 'o-1-e4b' }, identity)).toThrow(
      expect.objectContaining({
        code: 'InvalidOption',
        message: 'The corrected entry must keep entryId o-1-e4 (not o-1-e4b).',
      }),
    );
    expect(() => checkedCorrection({ ...entry, sequence: 5 }, identity)).toThrow(
      expect.objectContaining({ code: 'InvalidOption', message: expect.stringContaining('sequence 4 (not 5)') }),
    );
    expect(() => checkedCorrection({ ...entry, entryId: 'x', sequence: 5, orderId: 'o-9' }, identity)).toThrow(
      'The corrected entry must keep entryId o-1-e4 (not x), sequence 4 (not 5), orderId o-1, its session (not o-9).',
    );
  });

  it('refuses an invalid entry, saying what is wrong', () => {
    expect(() => checkedCorrection({ ...entry, data: { transactionId: 't4' } }, identity)).toThrow(
      expect.objectContaining({
        code: 'InvalidOption',
        message: expect.stringMatching(/^The corrected entry o-1-e4 is not valid: data\.amount/),
      }),
    );
  });
});
