/**
 * A stream's sound as one RTP stream of Opus, fed to a producer on each media
 * worker's router (every viewer's audio consumer forwards it). All viewers get
 * the same packets: sound is small, the most important, and never thinned.
 *
 * Timestamps tie the sound to the video's frames: stream frame index i starts
 * at audio timestamp `timestampBase + i * 48000 / frameRate`, the same instant
 * as the video's `index * ticksPerFrame` at 90 kHz. A run's sound starts where
 * its first frame's index does; a packet that would start before the sound
 * already sent (the last run's tail) is dropped, so timestamps only go forward.
 *
 * Each packet goes out twice: again with the next one, a packet time (20 ms)
 * later. Chromium does not negotiate NACK for Opus, and libopus codes its
 * in-band FEC only for frames its voice detector finds active (a steady sound,
 * as the default stream's rumble, gets almost none), so without the copy a
 * lost packet is a concealed one. The receiver's SRTP replay check drops the
 * copy of a packet it has; a consumer with NACK (a player that negotiates it)
 * drops it at the server (mediasoup keeps its retransmission buffer) and
 * repairs on request instead. The copies are counted in the viewer's rate as
 * sent (AudioStats).
 */
import { randomInt } from 'node:crypto';
import type { types as ms } from 'mediasoup';
import type { OpusPacket } from '../ingest/oggOpusReader';
import { writeRtpPacket } from '../rtp/rtpPacket';
import { AUDIO_CLOCK_RATE, OPUS_CODEC } from '../sfu/mediaWorker';
import { SERVER_TRANSPORT } from '../metrics/mediasoupWorkers';

export const AUDIO_PAYLOAD_TYPE = 100;

/** A stream's sound as its producers take it (a router's viewers, an origin's edges). */
export function opusRtpParameters(ssrc: number, cname: string): ms.RtpParameters {
  return {
    codecs: [
      {
        mimeType: OPUS_CODEC.mimeType,
        payloadType: AUDIO_PAYLOAD_TYPE,
        clockRate: AUDIO_CLOCK_RATE,
        channels: 2,
        parameters: { useinbandfec: 1, usedtx: 0, stereo: 1, 'sprop-stereo': 1 },
        // Retransmission where the player's capabilities offer NACK for Opus (mediasoup resends on the same SSRC).
        rtcpFeedback: [{ type: 'nack' }],
      },
    ],
    encodings: [{ ssrc }],
    rtcp: { cname },
  };
}

export class StreamAudio {
  readonly ssrc = randomInt(1, 2 ** 32 - 1);
  /** Random start of the audio RTP timestamps (the players map them to frame time with it). */
  readonly timestampBase = randomInt(0, 2 ** 32);
  private readonly samplesPerFrame: number;
  private sequence = randomInt(0, 2 ** 16);
  /** Sample (48 kHz, since the stream started) where the current run's timeline begins. */
  private runStart = 0;
  /** First sample not yet sent (the first packet may start before 0, by the encoder's delay). */
  private nextSample = -Infinity;
  private newRun = true;
  /** The last packet sent, sent again with the next. */
  private previous: Buffer | null = null;
  /** By media worker, as the stream's routers. */
  private readonly producers: (ms.Producer | null)[];
  private readonly transports: (ms.DirectTransport | null)[];
  /** Bytes and packets sent, for the stream's measured audio rate. */
  packetsSent = 0;
  bytesSent = 0;
  /** Who else gets each packet (once, without its copy): an origin's feed to its edges. */
  private readonly listeners = new Set<(packet: Buffer) => void>();

  constructor(frameRate: number, workers: number) {
    this.samplesPerFrame = AUDIO_CLOCK_RATE / frameRate;
    this.producers = Array.from({ length: workers }, () => null);
    this.transports = Array.from({ length: workers }, () => null);
  }

  /** The producer on worker `index`'s router: created with the router, replaced with it. */
  async attach(index: number, router: ms.Router, cname: string): Promise<void> {
    this.transports[index]?.close();
    this.producers[index] = null;
    const direct = await router.createDirectTransport({ appData: SERVER_TRANSPORT });
    this.transports[index] = direct;
    this.producers[index] = await direct.produce({ kind: 'audio', rtpParameters: opusRtpParameters(this.ssrc, cname), appData: { audio: true } });
  }

  producer(index: number): ms.Producer | null {
    return this.producers[index] ?? null;
  }

  /** A new ingest run whose first frame is stream index `firstIndex`. */
  onRun(firstIndex: number): void {
    this.runStart = Math.round(firstIndex * this.samplesPerFrame);
    this.newRun = true;
  }

  /** Sends one packet of the current run to every router's producer. */
  send(p: OpusPacket): void {
    const start = this.runStart + p.startSample;
    if (start < this.nextSample || p.samples === 0) return;
    this.nextSample = start + p.samples;
    const packet = writeRtpPacket(
      // The marker starts a talkspurt: the first packet of a run, after a gap.
      { payloadType: AUDIO_PAYLOAD_TYPE, sequenceNumber: this.sequence++, timestamp: this.timestampBase + start, ssrc: this.ssrc, marker: this.newRun },
      [p.data],
    );
    this.newRun = false;
    this.packetsSent++;
    this.bytesSent += packet.length;
    this.toProducers(packet);
    if (this.previous) this.toProducers(this.previous);
    this.previous = packet;
    for (const l of this.listeners) l(packet);
  }

  /** Each packet from now on, once; returns the unsubscribe function. */
  subscribe(listener: (packet: Buffer) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private toProducers(packet: Buffer): void {
    for (const producer of this.producers) if (producer && !producer.closed) producer.send(packet);
  }

  close(): void {
    this.listeners.clear();
    for (const t of this.transports) t?.close();
  }
}
