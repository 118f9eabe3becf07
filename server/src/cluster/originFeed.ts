import { randomInt } from 'node:crypto';
import type { types as ms } from 'mediasoup';
import type { LayeredFrame } from '../layering/layeredFrame';
import type { Logger } from '../log';
import { SERVER_TRANSPORT } from '../metrics/mediasoupWorkers';
import { parseRtcpFeedback } from '../rtp/rtcp';
import { Vp8Packetizer } from '../rtp/vp8Packetizer';
import type { MediaWorkerPool } from '../sfu/mediaWorkerPool';
import type { Stream } from '../streams/stream';
import { opusRtpParameters } from '../streams/streamAudio';
import { PAYLOAD_TYPE } from '../viewer/colorStreams';
import type { OriginMessage } from './pipeProtocol';

/** Where an origin's pipe transports listen (RTC_LISTEN_IP) and the address its edges reach them at (RTC_ANNOUNCED_IP). */
export interface PipeListen {
  ip: string;
  announcedAddress: string | undefined;
}

export type PipedAnswer = Extract<OriginMessage, { type: 'piped' }>;

/** One rendition's whole layered VP8 as one RTP stream. */
interface RenditionOut {
  producer: ms.Producer;
  packetizer: Vp8Packetizer;
  tl0PicIdx: number;
}

/**
 * A stream as an origin sends it to its edges: each rendition's frames, every layer, packetized once as
 * they leave the encoders (RFC 7741, as a viewer's flow does) into one producer per rendition on a
 * DirectTransport of a router of its own (media worker 0), and from there through a PipeTransport per
 * edge. Each frame's RTP timestamp is index x ticksPerFrame, so an edge reads the index back. The sound's
 * packets go into a producer of their own as the stream's viewers get them (without the copies). A PLI
 * from an edge (its consumer's keyframe request, through the pipe) asks the rendition's encoder for a
 * keyframe, throttled as viewers' requests are. The feed ends with its router (closed, or its worker died).
 */
export class OriginFeed {
  private nextIndex = 0;
  private readonly unsubscribe: (() => void)[];

  private constructor(
    private readonly stream: Stream,
    private readonly router: ms.Router,
    private readonly direct: ms.DirectTransport,
    private readonly outs: RenditionOut[],
    private readonly audio: ms.Producer,
    private readonly listen: PipeListen,
  ) {
    this.unsubscribe = [stream.subscribeFrames((frames) => this.send(frames)), stream.audio.subscribe((packet) => this.sendAudio(packet))];
    direct.on('rtcp', (buf) => this.onRtcp(buf));
    router.observer.once('close', () => this.unsubscribe.forEach((u) => u()));
  }

  /** Its router is closed: by close(), or with its media worker. */
  get closed(): boolean {
    return this.router.closed;
  }

  /** Called once when its router closes. */
  onClose(listener: () => void): void {
    this.router.observer.once('close', listener);
  }

  static async create(stream: Stream, renditions: number, media: MediaWorkerPool, listen: PipeListen, log: Logger): Promise<OriginFeed> {
    const router = await media.createRouter(0);
    try {
      const direct = await router.createDirectTransport({ appData: SERVER_TRANSPORT });
      const outs: RenditionOut[] = [];
      for (let r = 0; r < renditions; r++) {
        const ssrc = randomInt(1, 2 ** 32 - 1);
        const producer = await direct.produce({
          kind: 'video',
          rtpParameters: {
            codecs: [{ mimeType: 'video/VP8', payloadType: PAYLOAD_TYPE, clockRate: 90000, rtcpFeedback: [{ type: 'nack' }, { type: 'nack', parameter: 'pli' }, { type: 'ccm', parameter: 'fir' }] }],
            encodings: [{ ssrc }],
            rtcp: { cname: `pels-${stream.id}` },
          },
          appData: { rendition: r },
        });
        outs.push({ producer, packetizer: new Vp8Packetizer(ssrc, PAYLOAD_TYPE), tl0PicIdx: 0 });
      }
      // The stream's own SSRC: the packets are the ones its viewers get.
      const audio = await direct.produce({ kind: 'audio', rtpParameters: opusRtpParameters(stream.audio.ssrc, `pels-${stream.id}`), appData: { audio: true } });
      log.info({ stream: stream.id, renditions }, 'the stream is fed to its edges');
      return new OriginFeed(stream, router, direct, outs, audio, listen);
    } catch (err) {
      router.close();
      throw err;
    }
  }

  /** A pipe to an edge's PipeTransport; the answer tells the edge where to connect and what to produce. */
  async pipeTo(edge: { ip: string; port: number; srtp: ms.SrtpParameters }): Promise<{ pipe: ms.PipeTransport; answer: PipedAnswer }> {
    const pipe = await this.router.createPipeTransport({
      listenInfo: { protocol: 'udp', ip: this.listen.ip, ...(this.listen.announcedAddress ? { announcedAddress: this.listen.announcedAddress } : {}) },
      enableSrtp: true,
      enableRtx: true,
      appData: SERVER_TRANSPORT,
    });
    try {
      await pipe.connect({ ip: edge.ip, port: edge.port, srtpParameters: edge.srtp });
      const renditions = [];
      for (const out of this.outs) {
        const consumer = await pipe.consume({ producerId: out.producer.id });
        renditions.push({ producerId: out.producer.id, rtpParameters: consumer.rtpParameters as unknown as Record<string, unknown> });
      }
      const sound = await pipe.consume({ producerId: this.audio.id });
      const audio = { producerId: this.audio.id, rtpParameters: sound.rtpParameters as unknown as Record<string, unknown>, timestampBase: this.stream.audio.timestampBase };
      const srtp = pipe.srtpParameters!;
      return {
        pipe,
        answer: { type: 'piped', stream: this.stream.id, tuple: { ip: pipe.tuple.localAddress, port: pipe.tuple.localPort }, srtp, originIndex: this.nextIndex, renditions, audio },
      };
    } catch (err) {
      pipe.close();
      throw err;
    }
  }

  close(): void {
    // Closing the router closes the transports, producers and every edge's pipe on it.
    this.router.close();
  }

  private send(frames: readonly LayeredFrame[]): void {
    if (this.direct.closed) return;
    frames.forEach((frame, r) => {
      const out = this.outs[r];
      if (!out) return;
      if (frame.temporalId === 0) out.tl0PicIdx = (out.tl0PicIdx + 1) & 0xff;
      const packets = out.packetizer.packetize({
        data: frame.data,
        timestamp: frame.ticks % 2 ** 32,
        pictureId: frame.index & 0x7fff,
        tl0PicIdx: out.tl0PicIdx,
        temporalId: frame.temporalId,
        layerSync: frame.layerSync,
        nonReference: frame.nonReference,
      });
      for (const p of packets) out.producer.send(p);
    });
    this.nextIndex = frames[0]!.index + 1;
  }

  private sendAudio(packet: Buffer): void {
    if (!this.audio.closed) this.audio.send(packet);
  }

  private onRtcp(buf: Buffer): void {
    for (const fb of parseRtcpFeedback(buf)) {
      if (fb.type !== 'pli' && fb.type !== 'fir') continue;
      const r = this.outs.findIndex((o) => o.packetizer.ssrc === fb.mediaSsrc);
      if (r >= 0) this.stream.requestKeyframe(r, 'pli');
    }
  }
}
