/** The duration of an Opus packet from its TOC byte (RFC 6716, section 3.1). */

/** Samples at 48 kHz of one frame, by the TOC's configuration number (0-31). */
function frameSamples(config: number): number {
  if (config < 12) return [480, 960, 1920, 2880][config % 4]!; // SILK: 10, 20, 40, 60 ms
  if (config < 16) return [480, 960][config % 2]!; // hybrid: 10, 20 ms
  return [120, 240, 480, 960][config % 4]!; // CELT: 2.5, 5, 10, 20 ms
}

/** Samples (48 kHz) an Opus packet holds; 0 for an empty or malformed one. */
export function opusSamples(packet: Uint8Array): number {
  if (packet.length < 1) return 0;
  const toc = packet[0]!;
  const per = frameSamples(toc >> 3);
  switch (toc & 3) {
    case 0:
      return per;
    case 1:
    case 2:
      return 2 * per;
    default:
      return packet.length < 2 ? 0 : (packet[1]! & 0x3f) * per;
  }
}
