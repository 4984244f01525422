import { describe, expect, it } from 'vitest';
import { foldLog } from '../../../emulators/servicebus/store/foldLog.js';

describe('foldLog: duplicate-detection entries', () => {
  it('keeps a logged id unless its send was taken back, matching the entry by entity, id and time', () => {
    const { dups } = foldLog([
      { t: 'dup', e: 'q', id: 'a', at: 1 },
      { t: 'dup', e: 'q', id: 'b', at: 1 },
      { t: 'undup', e: 'q', id: 'a', at: 1 },
      { t: 'dup', e: 'q', id: 'a', at: 2 },
      { t: 'undup', e: 'other', id: 'b', at: 1 },
      { t: 'undup', e: 'q', id: 'b', at: 3 },
    ]);
    expect(dups).toEqual([
      { e: 'q', id: 'b', at: 1 },
      { e: 'q', id: 'a', at: 2 },
    ]);
  });
});
