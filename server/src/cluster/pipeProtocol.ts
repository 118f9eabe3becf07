import { z } from 'zod';
import { qualityFrameSchema, STREAM_STATES } from '@pels/shared/protocol/signaling';
import { AUDIO_PLANS } from '../ingest/sourceSpec';

/**
 * What an origin and its edge say over the origin's /cluster/ws (JSON text messages). The media goes
 * beside it, over a mediasoup PipeTransport per piped stream; this socket sets the pipes up and carries
 * what the RTP does not: the stream list and state, and the PSNR table rows.
 */

const streamId = z.string().min(1).max(64);
const tuple = z.object({ ip: z.string().min(1).max(64), port: z.number().int().min(1).max(65535) });
const srtp = z.object({ cryptoSuite: z.string().min(1).max(64), keyBase64: z.string().min(1).max(256) });

/** Edge to origin. */
export const edgeMessageSchema = z.discriminatedUnion('type', [
  /** Pipe the stream to this PipeTransport (its address and SRTP key); a pipe of the stream already here is replaced. */
  z.object({ type: z.literal('pipe'), stream: streamId, tuple, srtp }),
]);
export type EdgeMessage = z.infer<typeof edgeMessageSchema>;

const streamSummary = z.object({
  id: streamId,
  name: z.string().max(200),
  state: z.enum(STREAM_STATES),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  renditions: z.array(z.object({ width: z.number().int().positive(), height: z.number().int().positive(), bitrateKbps: z.number().positive() })).min(1).max(8),
  frameRate: z.number().positive(),
  ticksPerFrame: z.number().int().positive(),
  /** What the origin's current run does with the source's sound (none: the stream is silent). */
  audio: z.enum(AUDIO_PLANS),
});
export type StreamSummary = z.infer<typeof streamSummary>;

const pipedRendition = z.object({
  producerId: z.string().min(1).max(64),
  /** The origin's pipe consumer's RTP parameters: what the edge's pipe producer takes. */
  rtpParameters: z.record(z.string(), z.unknown()),
});

/** Origin to edge. */
export const originMessageSchema = z.discriminatedUnion('type', [
  /** Every stream of the origin, sent at once and whenever one changes. */
  z.object({ type: z.literal('streams'), streams: z.array(streamSummary).max(1000) }),
  /**
   * The stream is piped: connect to this tuple; the renditions' producers in rendition order and the sound's
   * (its RTP timestamp at frame index i is timestampBase + i x 48000 / frameRate, mod 2^32).
   * `originIndex`: the stream's next frame index.
   */
  z.object({
    type: z.literal('piped'),
    stream: streamId,
    tuple,
    srtp,
    originIndex: z.number().int().nonnegative(),
    renditions: z.array(pipedRendition).min(1).max(8),
    audio: pipedRendition.extend({ timestampBase: z.number().int().nonnegative().max(2 ** 32 - 1) }),
  }),
  /** The stream's pipe to this edge is gone (the origin's media worker restarted): ask for it again. */
  z.object({ type: z.literal('unpiped'), stream: streamId }),
  /** PSNR table rows of a piped stream's rendition, as its players get them. */
  z.object({ type: z.literal('quality'), stream: streamId, rendition: z.number().int().nonnegative(), frames: z.array(qualityFrameSchema).max(10_000) }),
  /** A request of the edge's that failed, and why. */
  z.object({ type: z.literal('error'), stream: streamId.optional(), message: z.string().max(500) }),
]);
export type OriginMessage = z.infer<typeof originMessageSchema>;
