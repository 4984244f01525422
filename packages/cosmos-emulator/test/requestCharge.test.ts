import { describe, expect, it } from 'vitest';
import {
  CHARGE_CONSTANTS,
  changeFeedCharge,
  operationCharge,
  queryCharge,
  resourceCharge,
  storedSize,
  sumCharges,
  writtenBytes,
} from '../src/requestCharge.js';

const KB = 1024;
const readCharge = (bytes: number): number => operationCharge('read', bytes);
const writeCharge = (bytes: number): number => operationCharge('create', bytes);

describe('request charge by item size', () => {
  it('charges the published rows at their sizes', () => {
    expect([1, 64, 256, 2048].map((kb) => writeCharge(kb * KB))).toEqual([4.95, 22.67, 98.29, 1250]);
    expect([1, 64, 256, 2048].map((kb) => readCharge(kb * KB))).toEqual([1, 4.76, 20.28, 291.8]);
  });

  it('charges the 1 KB row for anything smaller, an empty item included', () => {
    expect([0, 1, 500, KB].map(writeCharge)).toEqual([4.95, 4.95, 4.95, 4.95]);
    expect([0, 1, 500, KB].map(readCharge)).toEqual([1, 1, 1, 1]);
  });

  it('interpolates linearly between rows, to the hundredth', () => {
    // A quarter of the way from 32 KB (2.19 / 11.23) to 64 KB (4.76 / 22.67).
    expect(writeCharge(40 * KB)).toBe(14.09);
    expect(readCharge(40 * KB)).toBe(2.83);
    // 1 KB over the 64 KB row: a 64th of the way to the 128 KB row.
    expect(writeCharge(65 * KB)).toBe(23.07);
  });

  it('grows with size across the whole table', () => {
    const sizes = Array.from({ length: 200 }, (_, i) => (i + 1) * 10 * KB);
    const writes = sizes.map(writeCharge);
    const reads = sizes.map(readCharge);
    for (let i = 1; i < sizes.length; i++) {
      expect(writes[i]).toBeGreaterThanOrEqual(writes[i - 1]!);
      expect(reads[i]).toBeGreaterThanOrEqual(reads[i - 1]!);
    }
  });

  it('keeps the last row beyond it', () => {
    expect(writeCharge(4096 * KB)).toBe(1250);
  });

  it('charges point operations by their rows: reads by the read row, every write (delete and patch too) by the write row', () => {
    expect(operationCharge('read', 64 * KB)).toBe(4.76);
    expect(operationCharge('read', undefined)).toBe(1);
    for (const kind of ['create', 'replace', 'upsert', 'patch', 'delete'] as const)
      expect(operationCharge(kind, 64 * KB)).toBe(22.67);
  });

  it('charges queries and change feed reads their base plus each returned item by the read row', () => {
    expect(queryCharge([])).toBe(CHARGE_CONSTANTS.queryBase);
    expect(queryCharge([100, 64 * KB])).toBe(sumCharges([CHARGE_CONSTANTS.queryBase, 1, 4.76]));
    expect(changeFeedCharge([])).toBe(CHARGE_CONSTANTS.changeFeedBase);
    expect(changeFeedCharge([100, 200, 256 * KB])).toBe(sumCharges([CHARGE_CONSTANTS.changeFeedBase, 1, 1, 20.28]));
  });

  it('counts the bytes a write stores, and none for a read or a delete', () => {
    expect(['create', 'replace', 'upsert', 'patch'].map((k) => writtenBytes(k as 'create', 700))).toEqual([
      700, 700, 700, 700,
    ]);
    expect(writtenBytes('read', 700)).toBe(0);
    expect(writtenBytes('delete', 700)).toBe(0);
  });

  it('measures an item as its JSON in UTF-8 bytes', () => {
    expect(storedSize({ id: 'é' })).toBe(Buffer.byteLength('{"id":"é"}'));
  });

  it('sums to the hundredth without drift', () => {
    expect(sumCharges(Array.from({ length: 1000 }, () => 4.95))).toBe(4950);
    expect(sumCharges([0.1, 0.2])).toBe(0.3);
  });
});

describe('resources other than items', () => {
  const database = {
    id: 'db',
    _rid: 'AAAA',
    _self: 'dbs/AAAA/',
    _etag: '"0"',
    _colls: 'colls/',
    _users: 'users/',
    _ts: 1,
  };

  it('charge a write the write row of the resource as written, and a delete (no body) the 1 KB row', () => {
    expect(resourceCharge('write', 201, database)).toBe(4.95);
    expect(resourceCharge('write', 204, undefined)).toBe(4.95);
    const big = { ...database, body: 'x'.repeat(64 * KB - storedSize({ ...database, body: '' })) };
    expect(resourceCharge('write', 201, big)).toBe(22.67);
  });

  it('charge a read, a 304 and any other answer the read row of what they answer', () => {
    expect(resourceCharge('read', 200, database)).toBe(1);
    expect(resourceCharge('read', 304, undefined)).toBe(1);
    expect(resourceCharge('read', 200, Buffer.alloc(64 * KB))).toBe(4.76);
  });

  it('charge a list or a query like a query page over the resources it returns', () => {
    const feed = { _rid: '', Databases: [database, database], _count: 2 };
    expect(resourceCharge('read', 200, feed)).toBe(queryCharge([storedSize(database), storedSize(database)]));
    expect(resourceCharge('read', 200, { _rid: '', Offers: [], _count: 0 })).toBe(CHARGE_CONSTANTS.queryBase);
  });
});
