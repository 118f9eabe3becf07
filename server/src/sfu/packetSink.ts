/**
 * Where a viewer's flow hands its packets to mediasoup. Two ways lead there:
 * `producer.send` on a DirectTransport producer (mediasoup's public API), and
 * the channel writer (packetChannel.ts), which writes the same messages into
 * the worker's channel itself, cheaper per packet but resting on mediasoup's
 * internals. packetSinkChoice.ts picks one per worker when it starts.
 */
import type { types as ms } from 'mediasoup';
import type { Color } from '@pels/shared/pels/color';

/** One producer's packets. */
export interface PacketSink {
  send(packet: Buffer): void;
}

export const PACKET_SINK_KINDS = ['producer-send', 'channel-writer'] as const;
export type PacketSinkKind = (typeof PACKET_SINK_KINDS)[number];

/** Makes the sinks of one worker's producers. */
export interface PacketSinks {
  readonly kind: PacketSinkKind;
  /** `color`: what the sink may drop first when the worker falls behind (never green). */
  sink(producer: ms.Producer, color: Color): PacketSink;
}

/** mediasoup's public API: every packet through `producer.send`. */
export const producerSend: PacketSinks = {
  kind: 'producer-send',
  sink: (producer) => producer,
};
