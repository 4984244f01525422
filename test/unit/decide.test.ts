import { describe, expect, it } from 'vitest';
import { type Entry } from '../../src/core/index.js';
import { ORDER_DOCUMENT_ID, appliedEntryId } from '../../src/core/documents/documentIds.js';
import { ORDER_MAX_PARKED } from '../../src/core/schemas/limits.js';
import { decide, type Facts } from '../../src/core/processor/decide.js';
import { inboxRecord } from '../../src/core/documents/inboxRecord.js';
import { initialOrderState, type OrderState } from '../../src/core/order/orderState.js';
import { requestHash } from '../../src/core/hash.js';
import type { AppliedEntryDocument } from '../../src/core/documents/appliedEntryDocument.js';
import type { KeySeen } from '../../src/core/ports/orderStore.js';
import type { OrderDocument } from '../../src/core/documents/orderDocument.js';

/**
 * The processor's decision, rule by rule, in the evaluation order (a)–(e) of docs/architecture.md: what an entry means given the
 * order and what the store said about its key — pure, no store. The processor tests show the same rules end to end.
 */
const orderId = 'o-1';
const NOW = '2025-01-01T00:00:00.000Z';
const open: OrderState = {
  ...initialOrderState(),
  status: 'open',
  customerId: 'c',
  currency: 'EUR',
  transactionCount: 1,
  total: 5,
};

function order(lastSequence: number, more: Partial<OrderDocument> = {}): OrderDocument {
  return {
    id: ORDER_DOCUMENT_ID,
    docType: 'order',
    orderId,
    lastSequence,
    state: lastSequence === 0 ? initialOrderState() : open,
    parked: [],
    rejected: [],
    updatedAt: NOW,
    ...more,
  };
}

const added = (sequence: number, entryId = `e-${sequence}`, transactionId = `t-${sequence}`): Entry => ({
  entryId,
  orderId,
  sequence,
  type: 'TransactionAdded',
  data: { transactionId, amount: 1 },
});
const created: Entry = {
  entryId: 'e-1',
  orderId,
  sequence: 1,
  type: 'OrderCreated',
  data: { customerId: 'c', currency: 'EUR' },
};

function inbox(entry: Entry, hash = requestHash(entry), status: 'applied' | 'parked' = 'applied', attempt?: string) {
  return {
    doc: inboxRecord({
      consumer: 'order-processor',
      orderId,
      entryId: entry.entryId,
      requestHash: hash,
      sequence: entry.sequence,
      status,
      now: NOW,
      ttlSeconds: 60,
      attempt,
    }),
    etag: '"i"',
  };
}

function applied(entry: Entry, hash = requestHash(entry), sequence = entry.sequence): AppliedEntryDocument {
  return {
    id: appliedEntryId(entry.entryId),
    docType: 'applied',
    orderId,
    entryId: entry.entryId,
    sequence,
    requestHash: hash,
    appliedAt: NOW,
  };
}

function facts(
  entry: Entry,
  doc: OrderDocument | null | undefined,
  seen: KeySeen = {},
  more: Partial<Facts> = {},
): Facts {
  return {
    source: 'message',
    entry: { valid: true, entry, hash: requestHash(entry) },
    sessionId: orderId,
    order: doc,
    seen,
    ...more,
  };
}

describe('decide: one entry, the order as read, and what the store knows of its key', () => {
  it('(a) rule 6: an invalid body, or an entry of another order than its session, is dead-lettered without a read', () => {
    // Act
    const invalid = decide({
      source: 'message',
      entry: { valid: false, why: 'sequence: expected a number', sequence: undefined },
      sessionId: orderId,
      order: undefined,
      seen: {},
    });
    const readable = decide({
      source: 'message',
      entry: { valid: false, why: 'amount: not an integer', sequence: 4 },
      sessionId: orderId,
      order: undefined,
      seen: {},
    });
    const otherSession = decide(facts(added(2), undefined, {}, { sessionId: 'o-2' }));
    // Assess
    expect(invalid).toMatchObject({ kind: 'deadLetter', rule: 6, deadLetterReason: 'SchemaValidationFailed' });
    expect(invalid).not.toHaveProperty('holds');
    expect(readable).toMatchObject({ kind: 'deadLetter', rule: 6, holds: 4 });
    expect(otherSession).toMatchObject({
      kind: 'deadLetter',
      rule: 6,
      reason: 'orderId o-1 differs from the session o-2',
    });
    expect(otherSession).not.toHaveProperty('holds');
  });

  it('asks for the order before anything that depends on it', () => {
    expect(decide(facts(added(2), undefined))).toMatchObject({ kind: 'lookUp', record: 'order' });
  });

  it("(b) rules 2/3: the inbox record decides by its hash; this message's own in-doubt write is committed, not a duplicate", () => {
    // Prepare
    const entry = added(2);
    // Act + Assess
    expect(decide(facts(entry, order(2), { inbox: inbox(entry) }))).toMatchObject({ kind: 'duplicate', rule: 2 });
    expect(decide(facts(entry, order(2), { inbox: inbox(entry, 'f'.repeat(64)) }))).toMatchObject({
      kind: 'deadLetter',
      rule: 3,
      deadLetterReason: 'IdempotencyKeyConflict',
      alert: 'IdempotencyKeyConflict',
    });
    const own = decide(
      facts(
        entry,
        order(2),
        { inbox: inbox(entry, undefined, 'parked', 'attempt-1') },
        { ownAttempts: new Set(['attempt-1']) },
      ),
    );
    expect(own).toMatchObject({ kind: 'committed', rule: 5, as: 'parked' });
  });

  it('(c) rule 4: an applied sequence looks up the inbox, then the applied record, which decides', () => {
    // Prepare
    const entry = added(2);
    // Act + Assess
    expect(decide(facts(entry, order(3)))).toMatchObject({ kind: 'lookUp', record: 'inbox' });
    expect(decide(facts(entry, order(3), { inbox: null }))).toMatchObject({ kind: 'lookUp', record: 'applied' });
    expect(decide(facts(entry, order(3), { inbox: null, applied: applied(entry) }))).toMatchObject({
      kind: 'duplicate',
      rule: 4,
    });
    expect(decide(facts(entry, order(3), { inbox: null, applied: applied(entry, 'f'.repeat(64)) }))).toMatchObject({
      kind: 'deadLetter',
      rule: 3,
    });
    const other = decide(facts(entry, order(3), { inbox: null, applied: null }));
    expect(other).toMatchObject({
      kind: 'deadLetter',
      rule: 4,
      deadLetterReason: 'SequenceConflict',
      alert: 'SequenceConflict',
    });
    expect(other).not.toHaveProperty('holds');
  });

  it('rule 3 at the door: an entryId applied, parked or rejected at another sequence is a key conflict', () => {
    // Prepare
    const entry = added(5, 'X');
    const parkedAt3 = order(1, { parked: [{ sequence: 3, entryId: 'X', requestHash: 'h', parkedAt: NOW }] });
    // Act + Assess
    expect(decide(facts(entry, order(4), { inbox: null, applied: applied(entry, undefined, 2) }))).toMatchObject({
      kind: 'deadLetter',
      rule: 3,
      holds: 5,
    });
    expect(decide(facts(entry, parkedAt3))).toMatchObject({ kind: 'lookUp', record: 'inbox' });
    expect(decide(facts(entry, parkedAt3, { inbox: null }))).toMatchObject({
      kind: 'deadLetter',
      rule: 3,
      reason: expect.stringContaining('parked at sequence 3'),
    });
  });

  it("rule 4's last sentence: a parked sequence is the parked entry again (duplicate) or another entry (SequenceConflict)", () => {
    // Prepare
    const entry = added(3);
    const doc = order(1, { parked: [{ sequence: 3, entryId: 'e-3', requestHash: requestHash(entry), parkedAt: NOW }] });
    // Act + Assess
    expect(decide(facts(entry, doc, { inbox: null }))).toMatchObject({ kind: 'duplicate', rule: 2 });
    expect(decide(facts(added(3, 'Y'), doc, { inbox: null }))).toMatchObject({
      kind: 'deadLetter',
      rule: 4,
      deadLetterReason: 'SequenceConflict',
    });
  });

  it('(d) a gap parks (rule 5) once the entryId is known not applied elsewhere; on a deleted order, or past the bound, rule 7', () => {
    // Prepare
    const entry = added(4);
    const full = order(1, {
      parked: Array.from({ length: ORDER_MAX_PARKED }, (_, i) => ({
        sequence: 10 + i,
        entryId: `p-${i}`,
        requestHash: 'h',
        parkedAt: NOW,
      })),
    });
    // Act + Assess
    expect(decide(facts(entry, order(1)))).toMatchObject({ kind: 'lookUp', record: 'applied' });
    expect(decide(facts(entry, order(1), { applied: null }))).toMatchObject({ kind: 'park', rule: 5 });
    expect(decide(facts(entry, order(1, { state: { ...open, status: 'deleted' } }), { inbox: null }))).toMatchObject({
      kind: 'deadLetter',
      rule: 7,
      deadLetterReason: 'InvalidTransition',
    });
    expect(decide(facts(entry, full, { inbox: null }))).toMatchObject({ kind: 'deadLetter', rule: 7, holds: 4 });
  });

  it('(e) rule 7: the next sequence, impossible for the order, holds the order there (rule 10); else rule 1 applies it', () => {
    // Act + Assess
    expect(decide(facts(added(2, 'e-2', 't-1'), order(1), { inbox: null }, { transactionExists: true }))).toMatchObject(
      { kind: 'deadLetter', rule: 7, holds: 2 },
    );
    expect(decide(facts(added(2), order(1)))).toMatchObject({
      kind: 'apply',
      rule: 1,
      state: { total: 6, transactionCount: 2 },
      change: { transactionId: 't-2', amount: 1 },
    });
    expect(decide(facts(created, null))).toMatchObject({ kind: 'apply', rule: 1, state: { status: 'open' } });
  });

  it('(e) an amendment of an open order reads its transaction first; of a pending or deleted order it is rule 7 without a read', () => {
    // Prepare
    const amend: Entry = {
      entryId: 'e-2',
      orderId,
      sequence: 2,
      type: 'TransactionAmended',
      data: { transactionId: 't-1', amount: 9 },
    };
    const stored = {
      doc: { id: 'txn:1', docType: 'transaction' as const, orderId, transactionId: 't-1', amount: 5, addedSequence: 2 },
      etag: '"t"',
    };
    // Act + Assess
    expect(decide(facts(amend, order(1)))).toMatchObject({ kind: 'lookUp', record: 'transaction' });
    expect(decide(facts(amend, order(1), {}, { transaction: stored }))).toMatchObject({
      kind: 'apply',
      rule: 1,
      state: { total: 9, transactionCount: 1 },
      change: { transactionId: 't-1', amount: 9, previousAmount: 5 },
    });
    expect(decide(facts(amend, order(1), { inbox: null }, { transaction: null }))).toMatchObject({
      kind: 'deadLetter',
      rule: 7,
      holds: 2,
    });
    expect(decide(facts({ ...amend, sequence: 1 }, null, { inbox: null }))).toMatchObject({
      kind: 'deadLetter',
      rule: 7,
    });
    expect(decide(facts(amend, order(1, { state: { ...open, status: 'deleted' } }), { inbox: null }))).toMatchObject({
      kind: 'deadLetter',
      rule: 7,
    });
  });

  it('a due parked entry (the drain) is applied (rule 1) or rejected (rule 11) after its own inbox record is looked up', () => {
    // Prepare
    const entry = added(2, 'e-2', 't-1');
    const parkedFacts = (seen: KeySeen) => facts(entry, order(1), seen, { source: 'parked' });
    // Act + Assess
    expect(decide({ ...parkedFacts({}), entry: { valid: true, entry: added(2), hash: 'h' } })).toMatchObject({
      kind: 'apply',
      rule: 1,
    });
    expect(decide({ ...parkedFacts({}), transactionExists: true })).toMatchObject({ kind: 'lookUp', record: 'inbox' });
    expect(decide({ ...parkedFacts({ inbox: null }), transactionExists: true })).toMatchObject({
      kind: 'reject',
      rule: 11,
      deadLetterReason: 'InvalidTransition',
      holds: 2,
    });
    const elsewhere = decide({
      ...parkedFacts({ inbox: null, applied: applied(added(2), 'h', 9) }),
      entry: { valid: true, entry: added(2), hash: 'h' },
    });
    expect(elsewhere).toMatchObject({ kind: 'reject', rule: 11, deadLetterReason: 'IdempotencyKeyConflict' });
  });
});
