import { describe, expect, it } from 'vitest';
import { foldLog } from '../src/store/foldLog.js';

describe('foldLog: duplicate-detection entries', () => {
  it('keeps a logged id unless its send was taken back, matching the entry by entity, id and time', () => {
    const seen = (entity: string, messageId: string, at: number) => ({
      type: 'duplicateIdSeen' as const,
      entity,
      messageId,
      at,
    });
    const withdrawn = (entity: string, messageId: string, at: number) => ({
      type: 'duplicateIdWithdrawn' as const,
      entity,
      messageId,
      at,
    });
    const { duplicateIds } = foldLog([
      seen('q', 'a', 1),
      seen('q', 'b', 1),
      withdrawn('q', 'a', 1),
      seen('q', 'a', 2),
      withdrawn('other', 'b', 1),
      withdrawn('q', 'b', 3),
    ]);
    expect(duplicateIds).toEqual([
      { entity: 'q', messageId: 'b', at: 1 },
      { entity: 'q', messageId: 'a', at: 2 },
    ]);
  });
});
