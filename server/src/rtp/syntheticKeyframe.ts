/**
 * A 16x16 gray VP8 keyframe (made once with FFmpeg's libvpx). mediasoup's
 * simple consumer forwards nothing on a video stream until it has seen a
 * keyframe; answering the enhancement streams' PLIs with this tiny frame
 * opens that gate without asking the encoder for a real keyframe. The player
 * recognizes it by its 16x16 size and drops it.
 */
export const SYNTHETIC_KEYFRAME: Uint8Array = Uint8Array.from(
  Buffer.from('1002009d012a100010000047088585888584880202000c0e6000fe6800', 'hex'),
);
