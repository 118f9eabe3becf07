/**
 * Redis's wire protocol (RESP2), the part a registry needs: commands out as arrays of bulk strings,
 * replies in as simple strings, errors, integers, bulk strings and arrays. Pure: bytes in, values out.
 */

export type RespValue = string | number | null | RespError | RespValue[];

/** A `-ERR ...` reply. */
export class RespError extends Error {}

/** One command as Redis reads it. */
export function encodeCommand(args: readonly string[]): Buffer {
  const parts = [`*${args.length}\r\n`];
  for (const a of args) parts.push(`$${Buffer.byteLength(a)}\r\n${a}\r\n`);
  return Buffer.from(parts.join(''));
}

/** A reply larger than this is not one a registry asks for: the stream is taken as broken. */
const MAX_BULK_BYTES = 64 * 1024 * 1024;

/** Reads replies as the bytes come; `push` returns the replies completed. Throws on bytes that are not RESP. */
export class RespReader {
  private buffer: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): RespValue[] {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    const out: RespValue[] = [];
    for (;;) {
      const r = this.parse(0);
      if (!r) break;
      out.push(r.value);
      this.buffer = this.buffer.subarray(r.next);
    }
    return out;
  }

  /** The value at `at` and where the next begins; null while incomplete. */
  private parse(at: number): { value: RespValue; next: number } | null {
    const eol = this.buffer.indexOf('\r\n', at);
    if (eol < 0) return null;
    const type = String.fromCharCode(this.buffer[at]!);
    const line = this.buffer.toString('utf8', at + 1, eol);
    const next = eol + 2;
    switch (type) {
      case '+':
        return { value: line, next };
      case '-':
        return { value: new RespError(line), next };
      case ':':
        return { value: Number(line), next };
      case '$': {
        const n = this.length(line);
        if (n < 0) return { value: null, next };
        if (n > MAX_BULK_BYTES) throw new Error(`RESP: a bulk string of ${n} bytes`);
        if (this.buffer.length < next + n + 2) return null;
        return { value: this.buffer.toString('utf8', next, next + n), next: next + n + 2 };
      }
      case '*': {
        const n = this.length(line);
        if (n < 0) return { value: null, next };
        const items: RespValue[] = [];
        let pos = next;
        for (let i = 0; i < n; i++) {
          const r = this.parse(pos);
          if (!r) return null;
          items.push(r.value);
          pos = r.next;
        }
        return { value: items, next: pos };
      }
      default:
        throw new Error(`RESP: unexpected type byte ${JSON.stringify(type)}`);
    }
  }

  private length(line: string): number {
    const n = Number(line);
    if (!Number.isInteger(n) || n < -1) throw new Error(`RESP: bad length ${JSON.stringify(line)}`);
    return n;
  }
}
