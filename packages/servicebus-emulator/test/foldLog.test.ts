import { describe, expect, it } from 'vitest';
import { foldLog } from '../src/store/foldLog.js';
import { readRecord } from '../src/store/legacyLog.js';

describe('foldLog: duplicate-detection entries', () => {
  it('keeps a logged id unless its send was taken back, matching the entry by entity, id and time', () => {
    const seen = (entity: string, messageId: string, at: number) => ({ type: 'duplicateIdSeen' as const, entity, messageId, at });
    const withdrawn = (entity: string, messageId: string, at: number) => ({ type: 'duplicateIdWithdrawn' as const, entity, messageId, at });
    const { duplicateIds } = foldLog([
      seen('q', 'a', 1), seen('q', 'b', 1), withdrawn('q', 'a', 1), seen('q', 'a', 2), withdrawn('other', 'b', 1), withdrawn('q', 'b', 3),
    ]);
    expect(duplicateIds).toEqual([
      { entity: 'q', messageId: 'b', at: 1 },
      { entity: 'q', messageId: 'a', at: 2 },
    ]);
  });
});

describe('a log written before the keys were spelled out', () => {
  it('reads back as the same messages, delivery counts, session states and duplicate-detection entries', () => {
    // Prepare: the short-key records an earlier version wrote for one message, its updates and the rest.
    const short = [
      { t: 'dup', e: 'q', id: 'm1', at: 5 },
      { t: 'put', e: 'q', m: { s: 1, id: 'm1', sid: 'S', et: 5, ex: null, dc: 0, df: false, pl: 'available', h: { durable: true }, p: 'cA==', b: 'Yg==' } },
      { t: 'upd', e: 'q', s: 1, dc: 2 },
      { t: 'upd', e: 'q', s: 1, df: true, pl: 'deferred' },
      { t: 'put', e: 'q', m: { s: 2, id: 'm2', et: 6, ex: 99, dc: 0, df: false, pl: 'available', h: {}, p: 'cA==', b: 'Yg==' } },
      { t: 'del', e: 'q', s: 2 },
      { t: 'state', e: 'q', id: 'S', v: 'c3Q=' },
    ];

    // Act
    const folded = foldLog(short.map(readRecord));

    // Assess
    expect([...(folded.messages.get('q')?.values() ?? [])]).toEqual([
      {
        sequenceNumber: 1, messageId: 'm1', sessionId: 'S', enqueuedTime: 5, expiresAt: null, ttlMs: undefined, deliveryCount: 2, deferred: true,
        place: 'deferred', deadLetterSource: undefined, header: { durable: true }, annotations: undefined, properties: 'cA==', applicationProperties: undefined, body: 'Yg==',
      },
    ]);
    expect(folded.sessionStates.get('q')?.get('S')).toBe('c3Q=');
    expect(folded.duplicateIds).toEqual([{ entity: 'q', messageId: 'm1', at: 5 }]);
  });
});
