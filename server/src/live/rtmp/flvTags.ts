/**
 * FLV, the container an RTMP publisher's messages map to one for one: FFmpeg
 * reads a publisher's audio, video and metadata messages as FLV tags on its
 * stdin.
 */

/** The file header (video, and audio if `audio`, flagged: FFmpeg waits for each stream flagged) and the first PreviousTagSize. */
export function flvHeader(audio: boolean): Buffer {
  return Buffer.from([0x46, 0x4c, 0x56, 0x01, audio ? 0x05 : 0x01, 0, 0, 0, 9, 0, 0, 0, 0]);
}

/** One tag (8 audio, 9 video, 18 script data) and its PreviousTagSize. */
export function flvTag(type: 8 | 9 | 18, timestampMs: number, data: Buffer): Buffer {
  const head = Buffer.alloc(11);
  head[0] = type;
  head.writeUIntBE(data.length, 1, 3);
  head.writeUIntBE(timestampMs & 0xffffff, 4, 3);
  head[7] = (timestampMs >>> 24) & 0xff;
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(11 + data.length);
  return Buffer.concat([head, data, tail]);
}
