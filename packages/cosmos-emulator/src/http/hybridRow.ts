import { crc32 } from 'node:zlib';

/*
 * A minimal HybridRow codec: the binary row format the .NET SDK uses for transactional batches
 * (github.com/microsoft/HybridRow, docs/Grammar.md and RecordIO.md), limited to what the batch schemas use:
 * int32, uint32, float64, bool, utf8 and binary columns in fixed, variable or sparse storage.
 *
 * A row is `version (0x81) | schema id (int32 LE) | presence bits | fixed fields | variable fields | sparse fields`:
 * - every nullable fixed column and every variable column owns a presence bit, allocated in schema order,
 *   least significant bit first; fixed fields follow the bit bytes at offsets in schema order;
 * - a present variable field is `varuint length | bytes`, in schema order;
 * - a sparse field is `type code | path | value`, where the path is the column's token (a varuint: 0 is the
 *   empty path, then 1.. for the schema's fixed, variable and sparse columns in that order) or
 *   `varuint (token count + byte length) | utf8` for a path outside the schema.
 * A RecordIO stream is a segment row followed by (record header row, row) pairs; the record header carries
 * the row's length and CRC-32.
 */

/** Malformed or unsupported HybridRow input. */
export class HybridRowError extends Error {
  override readonly name = 'HybridRowError';
}

/** Column types this codec reads and writes. */
type ColumnType = 'int32' | 'uint32' | 'float64' | 'bool' | 'utf8' | 'binary';

/** One schema property. `nullable` defaults to true, as in the HybridRow schema language. */
interface ColumnSpec {
  path: string;
  type: ColumnType;
  storage: 'fixed' | 'variable' | 'sparse';
  nullable?: boolean;
}

/** A schema: its id (written in every row header) and its properties in declaration order. */
export interface RowSchema {
  id: number;
  columns: ColumnSpec[];
}

/** Column values of one row, by path; absent columns are undefined. */
export type Row = Record<string, number | boolean | string | Buffer | undefined>;

const VERSION_V1 = 0x81;
const HEADER_SIZE = 5;
const FIXED_SIZE: Partial<Record<ColumnType, number>> = { int32: 4, uint32: 4, float64: 8 };

/** Sparse type codes (`LayoutCode`). */
const CODE = {
  null: 1,
  false: 2,
  true: 3,
  int8: 5,
  int16: 6,
  int32: 7,
  int64: 8,
  uint8: 9,
  uint16: 10,
  uint32: 11,
  uint64: 12,
  varint: 13,
  varuint: 14,
  float32: 15,
  float64: 16,
  utf8: 20,
  binary: 21,
} as const;
const CODE_OF: Record<ColumnType, number> = {
  int32: CODE.int32,
  uint32: CODE.uint32,
  float64: CODE.float64,
  bool: CODE.true,
  utf8: CODE.utf8,
  binary: CODE.binary,
};

interface Layout {
  schema: RowSchema;
  bitBytes: number;
  fixed: { col: ColumnSpec; bit: number; boolBit: number; offset: number }[];
  variable: { col: ColumnSpec; bit: number }[];
  sparse: ColumnSpec[];
  /** Token id of every column path (1-based; 0 is the empty path). */
  tokens: Map<string, number>;
  byToken: ColumnSpec[];
  size: number;
}

const layouts = new WeakMap<RowSchema, Layout>();

function layoutOf(schema: RowSchema): Layout {
  const cached = layouts.get(schema);
  if (cached !== undefined) return cached;
  let bits = 0;
  let fixedSize = 0;
  const fixed: Layout['fixed'] = [];
  const variable: Layout['variable'] = [];
  const sparse: ColumnSpec[] = [];
  for (const col of schema.columns) {
    const nullable = col.nullable ?? true;
    if (col.storage === 'fixed') {
      const bit = nullable ? bits++ : -1;
      if (col.type === 'bool') {
        fixed.push({ col, bit, boolBit: bits++, offset: 0 });
        continue;
      }
      const size = FIXED_SIZE[col.type];
      if (size === undefined) throw new HybridRowError(`fixed ${col.type} columns are not supported (${col.path})`);
      fixed.push({ col, bit, boolBit: -1, offset: fixedSize });
      fixedSize += size;
    } else if (col.storage === 'variable') {
      if (col.type !== 'utf8' && col.type !== 'binary')
        throw new HybridRowError(`variable ${col.type} columns are not supported (${col.path})`);
      variable.push({ col, bit: bits++ });
    } else {
      sparse.push(col);
    }
  }
  const bitBytes = Math.ceil(bits / 8);
  for (const f of fixed) f.offset += bitBytes;
  const ordered = [...fixed.map((f) => f.col), ...variable.map((v) => v.col), ...sparse];
  const tokens = new Map(ordered.map((c, i) => [c.path, i + 1]));
  const layout: Layout = {
    schema,
    bitBytes,
    fixed,
    variable,
    sparse,
    tokens,
    byToken: [schema.columns[0]!, ...ordered],
    size: bitBytes + fixedSize,
  };
  layouts.set(schema, layout);
  return layout;
}

// ---- varuint (LEB128) ---------------------------------------------------------------------------

function varuint(value: number): Buffer {
  const out: number[] = [];
  let v = value;
  do {
    let byte = v % 128;
    v = Math.floor(v / 128);
    if (v > 0) byte |= 0x80;
    out.push(byte);
  } while (v > 0);
  return Buffer.from(out);
}

class Cursor {
  constructor(
    readonly buf: Buffer,
    public pos: number,
    readonly end: number,
  ) {}

  need(n: number, what: string): void {
    if (this.pos + n > this.end) throw new HybridRowError(`the row ends inside ${what}`);
  }

  byte(what: string): number {
    this.need(1, what);
    return this.buf[this.pos++]!;
  }

  varuint(what: string): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      const b = this.byte(what);
      value += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return value;
      scale *= 128;
    }
    throw new HybridRowError(`${what} is not a valid varuint`);
  }

  bytes(n: number, what: string): Buffer {
    this.need(n, what);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

// ---- rows ---------------------------------------------------------------------------------------

function encodeValue(col: ColumnSpec, value: number | boolean | string | Buffer): Buffer {
  const fail = (): never => {
    throw new HybridRowError(`column ${col.path} (${col.type}) cannot hold ${typeof value}`);
  };
  switch (col.type) {
    case 'int32': {
      if (typeof value !== 'number') return fail();
      const b = Buffer.alloc(4);
      b.writeInt32LE(value);
      return b;
    }
    case 'uint32': {
      if (typeof value !== 'number') return fail();
      const b = Buffer.alloc(4);
      b.writeUInt32LE(value);
      return b;
    }
    case 'float64': {
      if (typeof value !== 'number') return fail();
      const b = Buffer.alloc(8);
      b.writeDoubleLE(value);
      return b;
    }
    case 'bool':
      return typeof value === 'boolean' ? Buffer.alloc(0) : fail();
    case 'utf8':
    case 'binary': {
      const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.isBuffer(value) ? value : fail();
      return Buffer.concat([varuint(bytes.length), bytes]);
    }
  }
}

/** Encodes one row of `schema`. */
export function writeRow(schema: RowSchema, row: Row): Buffer {
  const layout = layoutOf(schema);
  const head = Buffer.alloc(HEADER_SIZE + layout.size);
  head[0] = VERSION_V1;
  head.writeInt32LE(schema.id | 0, 1);
  const setBit = (bit: number): void => {
    if (bit >= 0) head[HEADER_SIZE + (bit >> 3)]! |= 1 << (bit & 7);
  };
  for (const f of layout.fixed) {
    const value = row[f.col.path];
    if (value === undefined) continue;
    setBit(f.bit);
    if (f.col.type === 'bool') {
      if (value === true) setBit(f.boolBit);
      continue;
    }
    encodeValue(f.col, value).copy(head, HEADER_SIZE + f.offset);
  }
  const parts: Buffer[] = [head];
  for (const v of layout.variable) {
    const value = row[v.col.path];
    if (value === undefined) continue;
    setBit(v.bit);
    parts.push(encodeValue(v.col, value));
  }
  for (const col of layout.sparse) {
    const value = row[col.path];
    if (value === undefined) continue;
    const code = col.type === 'bool' ? (value === true ? CODE.true : CODE.false) : CODE_OF[col.type];
    parts.push(Buffer.from([code]), varuint(layout.tokens.get(col.path)!), encodeValue(col, value));
  }
  for (const path of Object.keys(row)) {
    if (row[path] !== undefined && !layout.tokens.has(path))
      throw new HybridRowError(`schema ${schema.id} has no column ${path}`);
  }
  return Buffer.concat(parts);
}

function decodeFixed(col: ColumnSpec, c: Cursor): number {
  const b = c.bytes(FIXED_SIZE[col.type]!, col.path);
  if (col.type === 'int32') return b.readInt32LE(0);
  if (col.type === 'uint32') return b.readUInt32LE(0);
  return b.readDoubleLE(0);
}

/** Decodes one sparse value of type `code`, checked against the column's declared type. */
function decodeSparse(col: ColumnSpec, code: number, c: Cursor): number | boolean | string | Buffer | undefined {
  if (code === CODE.null) return undefined;
  if (col.type === 'bool' && (code === CODE.true || code === CODE.false)) return code === CODE.true;
  if (code !== CODE_OF[col.type])
    throw new HybridRowError(`column ${col.path} (${col.type}) has a value of type code ${code}`);
  if (col.type === 'utf8' || col.type === 'binary') {
    const bytes = c.bytes(c.varuint(col.path), col.path);
    return col.type === 'utf8' ? bytes.toString('utf8') : Buffer.from(bytes);
  }
  return decodeFixed(col, c);
}

/**
 * Decodes the row of `schema` that occupies `buf[start, end)`.
 * @throws HybridRowError when the row is malformed, of another schema, or has a field outside the schema.
 */
export function readRow(schema: RowSchema, buf: Buffer, start = 0, end = buf.length): Row {
  const layout = layoutOf(schema);
  const c = new Cursor(buf, start, end);
  if (c.byte('the row header') !== VERSION_V1) throw new HybridRowError('the row is not HybridRow version 1');
  c.need(4, 'the row header');
  const id = buf.readInt32LE(c.pos);
  c.pos += 4;
  if (id !== (schema.id | 0)) throw new HybridRowError(`expected a row of schema ${schema.id}, found schema ${id}`);
  const base = c.pos;
  c.need(layout.size, 'the fixed fields');
  const bit = (n: number): boolean => n < 0 || (buf[base + (n >> 3)]! & (1 << (n & 7))) !== 0;
  const row: Row = {};
  for (const f of layout.fixed) {
    if (!bit(f.bit)) continue;
    if (f.col.type === 'bool') row[f.col.path] = bit(f.boolBit);
    else row[f.col.path] = decodeFixed(f.col, new Cursor(buf, base + f.offset, end));
  }
  c.pos = base + layout.size;
  for (const v of layout.variable) {
    if (!bit(v.bit)) continue;
    const bytes = c.bytes(c.varuint(v.col.path), v.col.path);
    row[v.col.path] = v.col.type === 'utf8' ? bytes.toString('utf8') : Buffer.from(bytes);
  }
  while (c.pos < end) {
    const code = c.byte('a sparse field');
    const token = c.varuint('a sparse path');
    let col: ColumnSpec | undefined;
    if (token < layout.byToken.length) col = token === 0 ? undefined : layout.byToken[token];
    else col = undefined;
    if (col === undefined || col.storage !== 'sparse') {
      const name =
        token >= layout.byToken.length
          ? c.bytes(token - layout.byToken.length, 'a sparse path').toString('utf8')
          : `#${token}`;
      throw new HybridRowError(`schema ${schema.id} has no sparse column ${name}`);
    }
    row[col.path] = decodeSparse(col, code, c);
  }
  return row;
}

// ---- RecordIO -----------------------------------------------------------------------------------

/** RecordIO segment header (system schema 2147473648): its own length, then optional sparse metadata. */
const SEGMENT: RowSchema = {
  id: 2147473648,
  columns: [
    { path: 'length', type: 'int32', storage: 'fixed' },
    { path: 'comment', type: 'utf8', storage: 'sparse' },
    { path: 'sdl', type: 'utf8', storage: 'sparse' },
  ],
};

/** RecordIO record header (system schema 2147473649): the length and CRC-32 of the row that follows. */
const RECORD: RowSchema = {
  id: 2147473649,
  columns: [
    { path: 'length', type: 'int32', storage: 'fixed', nullable: false },
    { path: 'crc32', type: 'uint32', storage: 'fixed', nullable: false },
  ],
};

/** Frames rows as one RecordIO segment. */
export function writeRecordIO(rows: Buffer[]): Buffer {
  const segmentSize = HEADER_SIZE + layoutOf(SEGMENT).size;
  const parts: Buffer[] = [writeRow(SEGMENT, { length: segmentSize })];
  for (const row of rows) parts.push(writeRow(RECORD, { length: row.length, crc32: crc32(row) }), row);
  return Buffer.concat(parts);
}

/**
 * The rows of a RecordIO stream (one or more segments), each checked against its record's length and CRC.
 * @throws HybridRowError on any malformed framing.
 */
export function readRecordIO(buf: Buffer): Buffer[] {
  const rows: Buffer[] = [];
  let pos = 0;
  let sawSegment = false;
  while (pos < buf.length) {
    if (pos + HEADER_SIZE > buf.length || buf[pos] !== VERSION_V1)
      throw new HybridRowError(`no HybridRow header at byte ${pos}`);
    const id = buf.readInt32LE(pos + 1);
    if (id === (SEGMENT.id | 0)) {
      const fixedEnd = pos + HEADER_SIZE + layoutOf(SEGMENT).size;
      if (fixedEnd > buf.length) throw new HybridRowError('the stream ends inside a segment header');
      const length = readRow({ ...SEGMENT, columns: SEGMENT.columns.slice(0, 1) }, buf, pos, fixedEnd)['length'];
      if (typeof length !== 'number' || length < fixedEnd - pos || pos + length > buf.length)
        throw new HybridRowError('a segment header has an invalid length');
      pos += length;
      sawSegment = true;
      continue;
    }
    if (!sawSegment) throw new HybridRowError('the stream does not start with a RecordIO segment');
    if (id !== (RECORD.id | 0))
      throw new HybridRowError(`expected a RecordIO record header at byte ${pos}, found schema ${id}`);
    const headerEnd = pos + HEADER_SIZE + layoutOf(RECORD).size;
    const record = readRow(RECORD, buf, pos, Math.min(headerEnd, buf.length));
    const length = record['length'] as number;
    if (length < 0 || headerEnd + length > buf.length)
      throw new HybridRowError(`record at byte ${pos} claims ${length} bytes beyond the stream`);
    const row = buf.subarray(headerEnd, headerEnd + length);
    if (crc32(row) !== record['crc32']) throw new HybridRowError(`record at byte ${pos} fails its CRC-32 check`);
    rows.push(row);
    pos = headerEnd + length;
  }
  return rows;
}
