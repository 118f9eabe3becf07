/**
 * Which way a worker's packets go (packetSink.ts), chosen when the worker
 * starts. The channel writer rests on what mediasoup does not promise: the
 * layout of its PRODUCER_SEND message and that fd 3 is its channel. So it is
 * used only when the installed mediasoup is the version it was built for and
 * a self-test on the worker passes: the message it builds for a known packet
 * is byte for byte the one `producer.send` writes to the socket, and a packet
 * it writes reaches a consumer on the worker whole. Otherwise `producer.send`,
 * with a warning saying why.
 */
import { randomBytes } from 'node:crypto';
import type { Writable } from 'node:stream';
import * as mediasoup from 'mediasoup';
import type { types as ms } from 'mediasoup';
import type { Logger } from '../log';
import { ChannelWriter, PacketChannel, type ChannelDrops } from './packetChannel';
import { producerSend, type PacketSinks } from './packetSink';
import { SERVER_TRANSPORT } from '../metrics/mediasoupWorkers';

/** The mediasoup version whose channel messages the writer was checked against (server/package.json pins it). */
export const CHANNEL_WRITER_MEDIASOUP_VERSION = '3.27.1';

/** How long the self-test's packet may take to come out of the worker. */
const SELF_TEST_TIMEOUT_MS = 3000;

const PAYLOAD_TYPE = 101;
const SSRC = 1234;

/** Ask for `producer-send` to skip the channel writer; `auto` uses it when it passes the checks. */
export type PacketSinkSetting = 'auto' | 'producer-send';

export interface PacketSinkChoice {
  setting: PacketSinkSetting;
  /** The router the self-test may use (its transports are closed after); the caller closes it. */
  router: ms.Router;
  /** The worker's channel socket. */
  socket: Writable;
  drops: ChannelDrops;
  log: Logger;
  /** The installed mediasoup version (tests give another). */
  installedVersion?: string;
}

export async function choosePacketSinks(c: PacketSinkChoice): Promise<PacketSinks> {
  if (c.setting === 'producer-send') {
    c.log.info('packets go to mediasoup through producer.send (PACKET_SINK=producer-send)');
    return producerSend;
  }
  const problem = await channelWriterProblem(c.router, c.socket, c.installedVersion ?? mediasoup.version);
  if (problem) {
    c.log.warn({ problem }, 'packets go to mediasoup through producer.send, slower: the channel writer cannot be used');
    return producerSend;
  }
  return new ChannelWriter(c.socket, c.drops);
}

/** Why the channel writer cannot be used on this worker, or null when it can. */
export async function channelWriterProblem(router: ms.Router, socket: Writable, installedVersion: string): Promise<string | null> {
  if (installedVersion !== CHANNEL_WRITER_MEDIASOUP_VERSION) {
    return `mediasoup ${installedVersion} is installed; the channel writer was built for ${CHANNEL_WRITER_MEDIASOUP_VERSION}`;
  }
  const into = await router.createDirectTransport({ appData: SERVER_TRANSPORT });
  const out = await router.createDirectTransport({ appData: SERVER_TRANSPORT });
  try {
    const producer = await into.produce({
      kind: 'video',
      rtpParameters: { codecs: [{ mimeType: 'video/VP8', payloadType: PAYLOAD_TYPE, clockRate: 90000 }], encodings: [{ ssrc: SSRC }] },
    });
    const consumer = await out.consume({ producerId: producer.id, rtpCapabilities: router.rtpCapabilities });
    const writer = new PacketChannel(producer.id, 'green', { write: () => {} });
    // The bytes: what producer.send writes to the socket for a packet, against the writer's message.
    const first = probe(1);
    const written = writesDuring(socket, () => producer.send(first.packet));
    if (written.length !== 1) return `producer.send wrote ${written.length} messages to the socket taken as the worker's channel, not 1`;
    if (!written[0]!.equals(writer.message(first.packet))) return "the channel writer's message differs from the one producer.send writes";
    // The worker: a packet the writer sends comes out of the consumer with its payload whole.
    const second = probe(2);
    const arrived = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), SELF_TEST_TIMEOUT_MS);
      consumer.on('rtp', (p) => {
        if (p.length >= second.payload.length && p.subarray(p.length - second.payload.length).equals(second.payload)) {
          clearTimeout(timer);
          resolve(true);
        }
      });
    });
    if (!socket.write(writer.message(second.packet)) && !socket.writable) return "the worker's channel socket is not writable";
    if (!(await arrived)) return `a packet written to the channel did not reach a consumer on the worker within ${SELF_TEST_TIMEOUT_MS} ms`;
    return null;
  } finally {
    into.close();
    out.close();
  }
}

/** A one-packet VP8 keyframe (a consumer forwards from a keyframe on) with a random payload tail. */
function probe(seq: number): { packet: Buffer; payload: Buffer } {
  // Descriptor with the S bit; frame tag, start code, 160x90.
  const payload = Buffer.concat([Buffer.from([0x10, 0x50, 0x2d, 0x01, 0x9d, 0x01, 0x2a, 0xa0, 0x00, 0x5a, 0x00]), randomBytes(501)]);
  // RTP version 2, marker and the payload type; the sequence number; timestamp 90000 * seq; the SSRC.
  const header = Buffer.alloc(12);
  header.writeUInt8(0x80, 0);
  header.writeUInt8(0x80 | PAYLOAD_TYPE, 1);
  header.writeUInt16BE(seq, 2);
  header.writeUInt32BE(90000 * seq, 4);
  header.writeUInt32BE(SSRC, 8);
  return { packet: Buffer.concat([header, payload]), payload };
}

/** What `act` writes to `socket`, each write copied (passed on to the socket as well). */
function writesDuring(socket: Writable, act: () => void): Buffer[] {
  const write = socket.write;
  const seen: Buffer[] = [];
  socket.write = ((chunk: Uint8Array, ...rest: unknown[]) => {
    seen.push(Buffer.from(chunk));
    return (write as (...a: unknown[]) => boolean).call(socket, chunk, ...rest);
  }) as typeof write;
  try {
    act();
  } finally {
    socket.write = write;
  }
  return seen;
}
