import { describe, expect, it } from 'vitest';
import { decideOrderDispatch, planSweep } from '../../src/core/outbox/outboxOrdering.js';
import { pendingRecord } from './support/records.js';

const t0 = Date.parse('2025-01-01T00:00:00.000Z');
const later = new Date(t0 + 60_000).toISOString();

describe('per-order delivery order', () => {
  it('claims only the lowest open sequence of an order, whatever order the records come in', () => {
    const records = [pendingRecord('o', 3), pendingRecord('o', 2), pendingRecord('o', 1, { status: 'completed' })];
    expect(decideOrderDispatch(records, t0)).toMatchObject({ kind: 'claim', record: { sequence: 2 } });
  });

  it('is idle when nothing is open', () => {
    expect(decideOrderDispatch([pendingRecord('o', 1, { status: 'completed' })], t0)).toEqual({ kind: 'idle' });
    expect(decideOrderDispatch([], t0)).toEqual({ kind: 'idle' });
  });

  it('waits while the lowest record is leased or backing off, even if a later one is claimable', () => {
    const leased = [pendingRecord('o', 1, { status: 'in-progress', leaseUntil: later }), pendingRecord('o', 2)];
    const backingOff = [pendingRecord('o', 1, { nextAttemptAt: later }), pendingRecord('o', 2)];
    expect(decideOrderDispatch(leased, t0)).toMatchObject({ kind: 'wait', record: { sequence: 1 } });
    expect(decideOrderDispatch(backingOff, t0)).toMatchObject({ kind: 'wait', record: { sequence: 1 } });
    expect(decideOrderDispatch(leased, t0 + 60_000)).toMatchObject({ kind: 'claim', record: { sequence: 1 } });
  });

  it('blocks the order behind a failed record', () => {
    const records = [pendingRecord('o', 2), pendingRecord('o', 1, { status: 'failed' })];
    expect(decideOrderDispatch(records, t0)).toMatchObject({ kind: 'blocked', record: { sequence: 1 } });
  });

  it('plans a sweep: due orders sorted by id, blocked orders with their failed record', () => {
    // Prepare
    const records = [
      pendingRecord('b', 1),
      pendingRecord('a', 2),
      pendingRecord('a', 1),
      pendingRecord('c', 4, { status: 'failed' }),
      pendingRecord('c', 5),
      pendingRecord('d', 1, { status: 'in-progress', leaseUntil: later }),
    ];
    // Act
    const plan = planSweep(records, t0);
    // Assess
    expect(plan.due).toEqual(['a', 'b']);
    expect(plan.blocked.map((r) => r.id)).toEqual(['outbox:c-4']);
  });
});
