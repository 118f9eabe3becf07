/**
 * `producer.send` has mediasoup build a FlatBuffers message for every packet
 * (the packet's vector, a table, the producer's id as a string, two more
 * tables) and copy it out of its builder: with hundreds of viewers that was a
 * tenth of node's time. Only two numbers of that message change from packet
 * to packet of one producer: the message's size prefix and the packet's
 * length; the rest (the producer's id, the tables, their offsets) is the same
 * bytes every time. So each producer's message is built once, by mediasoup's
 * own generated code and builder around an empty packet, and each packet's
 * message is that head with the two numbers written in, then the packet, then
 * the padding FlatBuffers aligns the vector with: byte for byte what
 * `producer.send` writes (a test builds both and compares them, and each
 * worker checks it at start, packetSinkChoice.ts). It goes to the worker's
 * channel socket (channelSocket.ts) as mediasoup's own writes do, so it keeps
 * their order. The generated modules are not among mediasoup's exports, so
 * they are loaded by their files (the version is pinned, server/package.json).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import type { types as ms } from 'mediasoup';
import type { Color } from '@pels/shared/pels/color';
import type { PacketSink, PacketSinks } from './packetSink';

const require = createRequire(import.meta.url);
const lib = dirname(require.resolve('mediasoup'));
const fbs = (path: string) => require(join(lib, 'fbs', path));

interface Builder {
  createString(s: string): number;
  finishSizePrefixed(root: number): void;
  asUint8Array(): Uint8Array;
}
const { Builder } = createRequire(require.resolve('mediasoup'))('flatbuffers') as { Builder: new (size: number) => Builder };
const { SendNotification } = fbs('producer/send-notification.js') as {
  SendNotification: { createDataVector(b: Builder, data: Uint8Array): number; createSendNotification(b: Builder, data: number): number };
};
const { Notification } = fbs('notification/notification.js') as { Notification: { createNotification(b: Builder, id: number, event: number, bodyType: number, body: number): number } };
const { Event } = fbs('notification/event.js') as { Event: { PRODUCER_SEND: number } };
const { Body: NotificationBody } = fbs('notification/body.js') as { Body: { Producer_SendNotification: number } };
const { Message } = fbs('message/message.js') as { Message: { createMessage(b: Builder, bodyType: number, body: number): number } };
const { Body: MessageBody } = fbs('message/body.js') as { Body: { Notification: number } };

/**
 * A producer's PRODUCER_SEND message around `packet`, built as mediasoup's
 * Producer.send and Channel.notify build it.
 */
export function sendNotification(producerId: string, packet: Uint8Array): Uint8Array {
  const b = new Builder(1024);
  // In Producer.send's order: the packet's vector and its table, then (Channel.notify) the id and the envelope.
  const body = SendNotification.createSendNotification(b, SendNotification.createDataVector(b, packet));
  const notification = Notification.createNotification(b, b.createString(producerId), Event.PRODUCER_SEND, NotificationBody.Producer_SendNotification, body);
  b.finishSizePrefixed(Message.createMessage(b, MessageBody.Notification, notification));
  return b.asUint8Array();
}

/** The size prefix, and the packet's length just before the packet. */
const U32 = 4;

/**
 * How far the channel socket's own buffer (bytes node holds that the worker
 * has not read yet, `writableLength`) may grow before packets are dropped:
 * red past half of it, yellow past all of it, green never. The socket also
 * carries the viewers' join requests, which wait behind whatever is queued;
 * at 1 MB a worker that keeps up reads it in tens of milliseconds.
 */
export const CHANNEL_BACKLOG_CAP_BYTES = 1 << 20;

/** Packets not written, per color, since the process started. */
export type ChannelDrops = Record<Color, number>;

/**
 * Writes packets into one worker's channel socket, as mediasoup's own writes
 * (so their order with its requests is kept), honouring the socket's
 * backlog: past the cap, red is dropped first, then yellow; green always goes.
 */
export class ChannelWriter implements PacketSinks {
  readonly kind = 'channel-writer';
  private readonly limits: Record<Color, number>;

  constructor(
    private readonly socket: Writable,
    private readonly drops: ChannelDrops,
    capBytes = CHANNEL_BACKLOG_CAP_BYTES,
  ) {
    this.limits = { green: Infinity, yellow: capBytes, red: capBytes / 2 };
  }

  sink(producer: ms.Producer, color: Color): PacketSink {
    return new PacketChannel(producer.id, color, this);
  }

  write(message: Buffer, color: Color): void {
    // A worker that died is replaced with new routers: its viewers are gone, nothing is to be sent to it.
    if (!this.socket.writable) return;
    if (this.socket.writableLength >= this.limits[color]) {
      this.drops[color]++;
      return;
    }
    this.socket.write(message);
  }
}

/** Sends packets into one producer through its worker's channel writer. */
export class PacketChannel implements PacketSink {
  /** The message of an empty packet without its last field (the vector's length): everything before the packet. */
  private readonly head: Buffer;

  constructor(
    producerId: string,
    private readonly color: Color,
    private readonly writer: Pick<ChannelWriter, 'write'>,
  ) {
    const empty = sendNotification(producerId, new Uint8Array(0));
    // An empty vector is the message's last field; nothing pads it.
    this.head = Buffer.from(empty.subarray(0, empty.length - U32));
  }

  send(packet: Uint8Array): void {
    this.writer.write(this.message(packet), this.color);
  }

  /** The packet's PRODUCER_SEND message: the head, the two numbers written in, the packet, FlatBuffers' padding. */
  message(packet: Uint8Array): Buffer {
    const pad = -packet.length & 3;
    const message = Buffer.allocUnsafe(this.head.length + U32 + packet.length + pad);
    this.head.copy(message);
    message.writeUInt32LE(message.length - U32, 0);
    message.writeUInt32LE(packet.length, this.head.length);
    message.set(packet, this.head.length + U32);
    message.fill(0, message.length - pad);
    return message;
  }
}
