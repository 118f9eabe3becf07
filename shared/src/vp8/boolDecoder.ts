/**
 * The boolean entropy decoder of VP8 (RFC 6386, section 7), enough to read the
 * frame header fields that sit before the first partition's token data.
 */
export class BoolDecoder {
  private value: number;
  private range = 255;
  private bitCount = 0;
  private pos: number;

  constructor(private readonly data: Uint8Array, offset: number) {
    if (offset + 2 > data.length) throw new RangeError('VP8 first partition is truncated');
    this.value = (data[offset]! << 8) | data[offset + 1]!;
    this.pos = offset + 2;
  }

  readBool(prob = 128): number {
    const split = 1 + (((this.range - 1) * prob) >> 8);
    const bigSplit = split << 8;
    let bit: number;
    if (this.value >= bigSplit) {
      bit = 1;
      this.range -= split;
      this.value -= bigSplit;
    } else {
      bit = 0;
      this.range = split;
    }
    while (this.range < 128) {
      this.value = (this.value << 1) & 0xffff;
      this.range <<= 1;
      if (++this.bitCount === 8) {
        this.bitCount = 0;
        // Past the end the stream reads as zeros, as libvpx does.
        if (this.pos < this.data.length) this.value |= this.data[this.pos]!;
        this.pos++;
      }
    }
    return bit;
  }

  /** An unsigned n-bit literal, most significant bit first (L(n) in the RFC). */
  readLiteral(bits: number): number {
    let v = 0;
    for (let i = 0; i < bits; i++) v = (v << 1) | this.readBool();
    return v;
  }

  /** A flag followed, when set, by an n-bit magnitude and a sign bit. */
  skipOptionalSigned(bits: number): void {
    if (this.readLiteral(1)) this.readLiteral(bits + 1);
  }
}
