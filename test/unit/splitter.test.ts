import { describe, expect, it } from 'vitest';
import { planLedger } from '../../src/core/index.js';
import { entryMessageId, requestHash } from '../../src/core/hash.js';
import { entriesFor } from './support/fixtures.js';

describe('ledger splitter plan', () => {
  const a = entriesFor('o-a');
  const b = entriesFor('o-b');
  const ledger = {
    ledgerId: 'L-0001',
    entries: [a.created(), b.created(), a.added(2, 't-1', 1250), b.deleted(2), a.deleted(3)],
  };

  it('plans one message per entry in ledger order with the contract fields', () => {
    // Act
    const plan = planLedger(JSON.stringify(ledger));
    // Assess
    expect(plan.ok).toBe(true);
    if (!plan.ok) return;
    expect(plan.messages.map((m) => m.body)).toEqual(ledger.entries);
    expect(plan.messages[2]).toEqual({
      messageId: entryMessageId('o-a-e2', requestHash(a.added(2, 't-1', 1250))),
      sessionId: 'o-a',
      correlationId: 'L-0001',
      contentType: 'application/json',
      applicationProperties: { sequence: 2, type: 'TransactionAdded' },
      body: a.added(2, 't-1', 1250),
    });
    expect(plan.messages[2]?.messageId).toMatch(/^o-a-e2:[0-9a-f]{16}$/);
  });

  it("marks each order's last entry in the ledger with handOff, and no other entry", () => {
    const plan = planLedger(ledger);
    expect(plan.ok).toBe(true);
    if (!plan.ok) return;
    expect(plan.messages.map((m) => [m.body.entryId, m.applicationProperties.handOff])).toEqual([
      ['o-a-e1', undefined],
      ['o-b-e1', undefined],
      ['o-a-e2', undefined],
      ['o-b-e2', true],
      ['o-a-e3', true],
    ]);
  });

  it('plans identical messages for a redelivered ledger, whatever its key order', () => {
    // Prepare
    const reordered = {
      entries: ledger.entries.map((x) => ({
        data: x.data,
        type: x.type,
        sequence: x.sequence,
        orderId: x.orderId,
        entryId: x.entryId,
      })),
      ledgerId: 'L-0001',
    };
    // Act
    const first = planLedger(ledger);
    const again = planLedger(Buffer.from(JSON.stringify(reordered)));
    // Assess
    expect(again.ok && again.messages.map((m) => m.messageId)).toEqual(
      first.ok && first.messages.map((m) => m.messageId),
    );
  });

  it('plans nothing for an invalid ledger and says why (rule 9)', () => {
    // Prepare
    const bad = { ...ledger, entries: [...ledger.entries, { ...a.added(4, 't-2', 1), amount: 3 }] };
    // Act
    const plan = planLedger(bad);
    // Assess
    expect(plan).toEqual({
      ok: false,
      issues: [{ path: 'entries[5].amount', message: 'Unknown property' }],
      description: 'entries[5].amount: Unknown property',
    });
  });
});
