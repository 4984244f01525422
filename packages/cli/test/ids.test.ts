import { describe, expect, it } from 'vitest';
import { messageEntryId, messageSequence, runIdOf, stripMessageIdSuffixes } from '../src/ids.js';
import { resubmissionMessage } from '../src/dlq/resubmission.js';
import { resubmission } from 'ledger-convoy/core';

describe('id rules', () => {
  it('reads the entryId from the body, else from the message id without its suffixes', () => {
    expect(messageEntryId({ entryId: 'e-1', sequence: 1 }, 'x')).toBe('e-1');
    expect(messageEntryId('{"entryId":"e-2"}', 'x')).toBe('e-2');
    expect(messageEntryId(Buffer.from('{cut'), 'e-3:0123456789abcdef')).toBe('e-3');
    expect(messageEntryId(Buffer.from('{cut'), 'e-3.r2')).toBe('e-3');
    expect(messageEntryId({ entryId: 5 }, 'p-1')).toBe('p-1');
    expect(stripMessageIdSuffixes('e-4:0123456789abcdef.r1')).toBe('e-4');
    expect(stripMessageIdSuffixes('ledger:short')).toBe('ledger:short');
  });

  it('reads a sequence only when it is a positive integer', () => {
    expect(messageSequence({ sequence: 3 })).toBe(3);
    expect(messageSequence({ sequence: 'next' })).toBeUndefined();
    expect(messageSequence({ sequence: 0 })).toBeUndefined();
    expect(messageSequence(Buffer.from('{'))).toBeUndefined();
  });

  it('derives a stable run id from the seed', () => {
    expect(runIdOf(42)).toBe('r16');
    expect(runIdOf(42)).toBe(runIdOf(42));
  });
});

describe('resubmissionMessage (rule 10)', () => {
  const dead = {
    body: {
      entryId: 'e-7',
      orderId: 'o-1',
      sequence: 4,
      type: 'TransactionAdded',
      data: { transactionId: 't', amount: 1 },
    },
    messageId: 'e-7:0123456789abcdef',
    sessionId: 'o-1',
    correlationId: 'L-1',
    contentType: 'application/json',
    subject: undefined,
    applicationProperties: {
      sequence: 4,
      type: 'TransactionAdded',
      DeadLetterReason: 'InvalidTransition',
      DeadLetterErrorDescription: 'x',
      traceparent: 'tp',
    },
  };

  it('keeps body, session, correlation and properties, drops the dead-letter ones, and numbers the copy', () => {
    expect(resubmissionMessage(dead, resubmission('e-7', []))).toEqual({
      messageId: 'e-7.r1',
      body: dead.body,
      sessionId: 'o-1',
      correlationId: 'L-1',
      contentType: 'application/json',
      applicationProperties: { sequence: 4, type: 'TransactionAdded', traceparent: 'tp', resubmitCount: 1 },
    });
  });

  it('carries the number it is given as messageId and resubmitCount', () => {
    const again = resubmissionMessage(
      { ...dead, messageId: 'e-7.r2', applicationProperties: { resubmitCount: 2 } },
      resubmission('e-7', [2]),
    );
    expect(again.messageId).toBe('e-7.r3');
    expect(again.applicationProperties?.resubmitCount).toBe(3);
  });

  it('takes sequence and type from a corrected entry', () => {
    const corrected = { ...dead.body, type: 'TransactionAmended' };
    const copy = resubmissionMessage(dead, resubmission('e-7', []), corrected);
    expect(copy.body).toEqual(corrected);
    expect(copy.applicationProperties).toMatchObject({ sequence: 4, type: 'TransactionAmended', resubmitCount: 1 });
  });
});
