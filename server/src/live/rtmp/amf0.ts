/**
 * AMF0, the encoding of RTMP's commands (connect, createStream, publish) and
 * of the stream's metadata. Decoding is bounded: a value nested deeper than
 * MAX_DEPTH, or one that runs past the message, is an error, never a crash.
 */
export type Amf0Value = number | boolean | string | null | undefined | Date | Amf0Value[] | { [key: string]: Amf0Value };

export class Amf0Error extends Error {
  override name = 'Amf0Error';
}

const MAX_DEPTH = 16;
const OBJECT_END = 0x09;

/** Every value in `buf`, in order. */
export function decodeAmf0(buf: Buffer): Amf0Value[] {
  const r = { buf, at: 0 };
  const values: Amf0Value[] = [];
  while (r.at < buf.length) values.push(readValue(r, 0));
  return values;
}

/** The offset just past the first value in `buf` (to cut `@setDataFrame` from a metadata message). */
export function firstValueLength(buf: Buffer): number {
  const r = { buf, at: 0 };
  readValue(r, 0);
  return r.at;
}

interface Reader {
  buf: Buffer;
  at: number;
}

function need(r: Reader, n: number): void {
  if (r.at + n > r.buf.length) throw new Amf0Error(`AMF0 value runs past the end of the message (at byte ${r.at}, ${n} more wanted)`);
}

function readValue(r: Reader, depth: number): Amf0Value {
  if (depth > MAX_DEPTH) throw new Amf0Error(`AMF0 values nested deeper than ${MAX_DEPTH}`);
  need(r, 1);
  const marker = r.buf[r.at++]!;
  switch (marker) {
    case 0x00: {
      need(r, 8);
      const v = r.buf.readDoubleBE(r.at);
      r.at += 8;
      return v;
    }
    case 0x01:
      need(r, 1);
      return r.buf[r.at++] !== 0;
    case 0x02:
      return readString(r, 2);
    case 0x0c:
      return readString(r, 4);
    case 0x03:
      return readProperties(r, depth);
    case 0x08:
      // ECMA array: a count (not to be trusted), then properties as an object.
      need(r, 4);
      r.at += 4;
      return readProperties(r, depth);
    case 0x0a: {
      need(r, 4);
      const count = r.buf.readUInt32BE(r.at);
      r.at += 4;
      // Each element takes at least a byte: a count past the message is a lie, caught before allocating.
      need(r, count);
      return Array.from({ length: count }, () => readValue(r, depth + 1));
    }
    case 0x05:
      return null;
    case 0x06:
      return undefined;
    case 0x0b: {
      need(r, 10);
      const ms = r.buf.readDoubleBE(r.at);
      r.at += 10;
      return new Date(ms);
    }
    default:
      throw new Amf0Error(`unsupported AMF0 type marker 0x${marker.toString(16).padStart(2, '0')} at byte ${r.at - 1}`);
  }
}

function readString(r: Reader, lengthBytes: 2 | 4): string {
  need(r, lengthBytes);
  const n = lengthBytes === 2 ? r.buf.readUInt16BE(r.at) : r.buf.readUInt32BE(r.at);
  r.at += lengthBytes;
  need(r, n);
  const s = r.buf.toString('utf8', r.at, r.at + n);
  r.at += n;
  return s;
}

function readProperties(r: Reader, depth: number): { [key: string]: Amf0Value } {
  const o: { [key: string]: Amf0Value } = Object.create(null) as { [key: string]: Amf0Value };
  for (;;) {
    const key = readString(r, 2);
    need(r, 1);
    if (key === '' && r.buf[r.at] === OBJECT_END) {
      r.at++;
      return o;
    }
    o[key] = readValue(r, depth + 1);
  }
}

/** Encodes numbers, booleans, strings, null, undefined and plain objects (what the server sends). */
export function encodeAmf0(...values: Amf0Value[]): Buffer {
  return Buffer.concat(values.map(encodeValue));
}

function encodeValue(v: Amf0Value): Buffer {
  if (v === null) return Buffer.from([0x05]);
  if (v === undefined) return Buffer.from([0x06]);
  if (typeof v === 'number') {
    const b = Buffer.alloc(9);
    b[0] = 0x00;
    b.writeDoubleBE(v, 1);
    return b;
  }
  if (typeof v === 'boolean') return Buffer.from([0x01, v ? 1 : 0]);
  if (typeof v === 'string') return Buffer.concat([Buffer.from([0x02]), stringBytes(v)]);
  if (v instanceof Date || Array.isArray(v)) throw new Amf0Error('the server sends no dates or arrays');
  return Buffer.concat([Buffer.from([0x03]), ...Object.entries(v).flatMap(([k, x]) => [stringBytes(k), encodeValue(x)]), Buffer.from([0, 0, OBJECT_END])]);
}

function stringBytes(s: string): Buffer {
  const body = Buffer.from(s, 'utf8');
  if (body.length > 0xffff) throw new Amf0Error('AMF0 string over 65535 bytes');
  const len = Buffer.alloc(2);
  len.writeUInt16BE(body.length);
  return Buffer.concat([len, body]);
}
