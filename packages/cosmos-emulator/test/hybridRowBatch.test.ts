import type { Container } from '@azure/cosmos';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readRecordIO, readRow, writeRecordIO, writeRow } from '../src/http/hybridRow.js';
import type { RowSchema } from '../src/http/hybridRow.js';
import { rawRequest, useOrdersHarness } from './harness.js';

/*
 * Transactional batches in the .NET SDK's binary form. Requests are built byte by byte here from the HybridRow
 * grammar and the SDK's batch schema (not with the emulator's encoder), so the decoder is checked against the
 * format itself; the .NET check in compat/dotnet runs the real SDK.
 */

const int32 = (v: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32LE(v);
  return b;
};
const uint32 = (v: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v);
  return b;
};
const varuint = (v: number): Buffer => {
  const out: number[] = [];
  do {
    out.push((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>>= 7;
  } while (v > 0);
  return Buffer.from(out);
};
const header = (schemaId: number): Buffer => Buffer.concat([Buffer.from([0x81]), int32(schemaId | 0)]);

/** A RecordIO stream: a segment (its own length only), then a record header (length, CRC-32) before each row. */
function recordIO(rows: Buffer[]): Buffer {
  const segment = Buffer.concat([header(2147473648), Buffer.from([0x01]), int32(10)]);
  return Buffer.concat([
    segment,
    ...rows.flatMap((r) => [Buffer.concat([header(2147473649), int32(r.length), uint32(crc32(r))]), r]),
  ]);
}

/** The SDK's OperationType values. */
const OP = { create: 0, patch: 1, read: 2, delete: 4, replace: 5, upsert: 20 } as const;

/**
 * A `BatchOperation` row (schema 2145473648). Presence bits in schema order: operationType 0, resourceType 1,
 * partitionKey 2, effectivePartitionKey 3, id 4, binaryId 5, resourceBody 6; then the two fixed int32s; then the
 * present variable fields; then sparse `ifMatch` (type code 20 utf8, path token 9) and `minimalReturnPreference`.
 */
function operation(op: { type: number; id?: string; body?: unknown; ifMatch?: string; minimal?: boolean }): Buffer {
  let bits = 0b11;
  const variable: Buffer[] = [];
  if (op.id !== undefined) {
    bits |= 1 << 4;
    variable.push(varuint(Buffer.byteLength(op.id)), Buffer.from(op.id));
  }
  if (op.body !== undefined) {
    bits |= 1 << 6;
    const json = Buffer.from(JSON.stringify(op.body));
    variable.push(varuint(json.length), json);
  }
  const sparse =
    op.ifMatch === undefined
      ? []
      : [Buffer.from([20]), varuint(9), varuint(Buffer.byteLength(op.ifMatch)), Buffer.from(op.ifMatch)];
  // minimalReturnPreference: a sparse bool carries its value in the type code (3 true), path token 12, no payload.
  if (op.minimal === true) sparse.push(Buffer.from([3]), varuint(12));
  return Buffer.concat([header(2145473648), Buffer.from([bits]), int32(op.type), int32(2), ...variable, ...sparse]);
}

const RESULT: RowSchema = {
  id: 2145473649,
  columns: [
    { path: 'statusCode', type: 'int32', storage: 'fixed' },
    { path: 'subStatusCode', type: 'int32', storage: 'fixed' },
    { path: 'eTag', type: 'utf8', storage: 'variable' },
    { path: 'resourceBody', type: 'binary', storage: 'variable' },
    { path: 'retryAfterMilliseconds', type: 'uint32', storage: 'sparse' },
    { path: 'requestCharge', type: 'float64', storage: 'sparse' },
  ],
};

const fixture = useOrdersHarness();

async function sendBatch(
  orders: Container,
  pk: string,
  body: Buffer,
): Promise<{ status: number; results: Record<string, unknown>[]; raw: Buffer; requestCharge: number }> {
  const res = await rawRequest(fixture.h.emulator, 'POST', `/${orders.url.replace(/^\//, '')}/docs`, {
    body,
    headers: {
      'x-ms-cosmos-is-batch-request': 'True',
      'x-ms-cosmos-batch-atomic': 'True',
      'x-ms-documentdb-partitionkey': JSON.stringify([pk]),
      'content-type': 'application/octet-stream',
    },
  });
  const raw = Buffer.from(await res.arrayBuffer());
  const results = raw[0] === 0x81 ? readRecordIO(raw).map((row) => readRow(RESULT, row)) : [];
  return { status: res.status, results, raw, requestCharge: Number(res.headers.get('x-ms-request-charge')) };
}

describe('HybridRow rows', () => {
  it('encode a batch result exactly as the grammar lays it out', () => {
    const row = writeRow(RESULT, { statusCode: 200, subStatusCode: 0, eTag: 'e', requestCharge: 1 });
    // header | bits (statusCode, subStatusCode, eTag) | 200 | 0 | eTag "e" | sparse float64 (code 16) token 6 = 1.0
    expect(row.toString('hex')).toBe(
      '817154e17f' + '07' + 'c8000000' + '00000000' + '0165' + '10' + '06' + '000000000000f03f',
    );
    expect(readRow(RESULT, row)).toEqual({ statusCode: 200, subStatusCode: 0, eTag: 'e', requestCharge: 1 });
  });

  it('frame rows as one RecordIO segment with each record length and CRC-32', () => {
    const rows = [Buffer.from([0x81, 1, 2, 3]), Buffer.from([0x81, 4])];
    expect(writeRecordIO(rows).equals(recordIO(rows))).toBe(true);
    expect(readRecordIO(recordIO(rows))).toEqual(rows);
  });
});

describe('transactional batch in HybridRow', () => {
  it('commits every operation and answers HybridRow results with bodies and ETags', async () => {
    const { orders } = fixture;
    await orders.items.create({ id: 'r1', orderId: 'h1', n: 1 });
    const { status, results } = await sendBatch(
      orders,
      'h1',
      recordIO([
        operation({ type: OP.create, body: { id: 'c1', orderId: 'h1' } }),
        operation({ type: OP.upsert, body: { id: 'u1', orderId: 'h1' } }),
        operation({ type: OP.read, id: 'r1' }),
        operation({ type: OP.replace, id: 'r1', body: { id: 'r1', orderId: 'h1', n: 2 } }),
      ]),
    );
    expect(status).toBe(200);
    expect(results.map((r) => r['statusCode'])).toEqual([201, 201, 200, 200]);
    expect(results.every((r) => typeof r['eTag'] === 'string')).toBe(true);
    expect(JSON.parse((results[2]!['resourceBody'] as Buffer).toString())).toMatchObject({ id: 'r1', n: 1 });
    expect((await orders.item('r1', 'h1').read()).resource).toMatchObject({ n: 2 });
  });

  it('carries each operation request charge in its result row and the sum in the header', async () => {
    const { orders } = fixture;
    await orders.items.create({ id: 'r1', orderId: 'h9' });
    const { results, requestCharge } = await sendBatch(
      orders,
      'h9',
      recordIO([
        operation({ type: OP.create, body: { id: 'c1', orderId: 'h9' } }),
        operation({ type: OP.read, id: 'r1' }),
      ]),
    );
    // Small items: the 1 KB rows of the table, 4.95 for a write and 1 for a read.
    expect(results.map((r) => r['requestCharge'])).toEqual([4.95, 1]);
    expect(requestCharge).toBe(5.95);
  });

  it('leaves the body out of the result of an operation that asks for minimal return', async () => {
    const { results } = await sendBatch(
      fixture.orders,
      'h7',
      recordIO([
        operation({ type: OP.create, body: { id: 'm1', orderId: 'h7' }, minimal: true }),
        operation({ type: OP.create, body: { id: 'm2', orderId: 'h7' } }),
      ]),
    );
    expect(results.map((r) => [r['statusCode'], r['resourceBody'] === undefined])).toEqual([
      [201, true],
      [201, false],
    ]);
    expect(typeof results[0]!['eTag']).toBe('string');
  });

  it('fails atomically: 207, the failing status, 424 for the rest and nothing written', async () => {
    const { orders } = fixture;
    await orders.items.create({ id: 'dup', orderId: 'h2' });
    const { status, results } = await sendBatch(
      orders,
      'h2',
      recordIO([
        operation({ type: OP.create, body: { id: 'new', orderId: 'h2' } }),
        operation({ type: OP.create, body: { id: 'dup', orderId: 'h2' } }),
      ]),
    );
    expect(status).toBe(207);
    expect(results.map((r) => r['statusCode'])).toEqual([424, 409]);
    expect((await orders.item('new', 'h2').read()).statusCode).toBe(404);
  });

  it('checks each operation ifMatch ETag', async () => {
    const { orders } = fixture;
    const current = (await orders.items.create({ id: 'e1', orderId: 'h3', n: 1 })).etag!;
    const stale = await sendBatch(
      orders,
      'h3',
      recordIO([
        operation({ type: OP.replace, id: 'e1', body: { id: 'e1', orderId: 'h3', n: 9 }, ifMatch: '"stale"' }),
      ]),
    );
    expect(stale.status).toBe(207);
    expect(stale.results.map((r) => r['statusCode'])).toEqual([412]);
    const ok = await sendBatch(
      orders,
      'h3',
      recordIO([operation({ type: OP.replace, id: 'e1', body: { id: 'e1', orderId: 'h3', n: 2 }, ifMatch: current })]),
    );
    expect(ok.results.map((r) => r['statusCode'])).toEqual([200]);
  });

  it('keeps the JSON path limits: more than 100 operations is a 400', async () => {
    const ops = Array.from({ length: 101 }, (_, i) =>
      operation({ type: OP.create, body: { id: `l${i}`, orderId: 'h4' } }),
    );
    const { status, raw } = await sendBatch(fixture.orders, 'h4', recordIO(ops));
    expect(status).toBe(400);
    expect(raw.toString()).toContain('at most 100');
  });

  it('refuses a corrupted stream with a 400 that says why, and writes nothing', async () => {
    const stream = recordIO([operation({ type: OP.create, body: { id: 'crc', orderId: 'h5' } })]);
    stream[stream.length - 2] = stream[stream.length - 2]! ^ 0xff;
    const { status, raw } = await sendBatch(fixture.orders, 'h5', stream);
    expect(status).toBe(400);
    expect(raw.toString()).toContain('CRC-32');
    expect((await fixture.orders.item('crc', 'h5').read()).statusCode).toBe(404);
  });

  it('refuses an operation type the emulator does not know with a 400 naming it', async () => {
    const { status, raw } = await sendBatch(fixture.orders, 'h6', recordIO([operation({ type: 99, id: 'x' })]));
    expect(status).toBe(400);
    expect(raw.toString()).toContain('operationType 99');
  });
});
