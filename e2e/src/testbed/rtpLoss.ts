/**
 * Each RTP stream's loss as captured at the viewers' side of the bottleneck
 * (testbed --capture), against what a libwebrtc receiver reports of it: the
 * check that the receiver reports the control loop steps on count what was
 * lost (decision 015). SRTP leaves the header (sequence number, SSRC) clear.
 */
import { rtpSsrc, type UdpPacket } from '../pcap';

/** libwebrtc's reordering threshold for a stream with NACK (kMaxPacketAgeToNack); 50 without. */
export const NACK_REORDERING_THRESHOLD = 450;

export interface SequenceLoss {
  received: number;
  /** From the first sequence number seen to the last: what was sent meanwhile. */
  expected: number;
  lost: number;
  /**
   * The cumulative loss a libwebrtc receiver counts for the same packets: a
   * jump of more than the threshold followed by the next number is taken for
   * the stream restarting, and its gap is not counted.
   */
  reportedLost: number;
}

/** Loss over a stream's sequence numbers in arrival order. */
export function sequenceLoss(seqs: readonly number[], reorderingThreshold = NACK_REORDERING_THRESHOLD): SequenceLoss {
  const unwrapped: number[] = [];
  for (const s of seqs) {
    const last = unwrapped[unwrapped.length - 1];
    if (last === undefined) unwrapped.push(s);
    else {
      const d = (s - last + 0x10000) % 0x10000;
      unwrapped.push(last + (d >= 0x8000 ? d - 0x10000 : d));
    }
  }
  if (unwrapped.length === 0) return { received: 0, expected: 0, lost: 0, reportedLost: 0 };
  const expected = Math.max(...unwrapped) - Math.min(...unwrapped) + 1;
  // libwebrtc's count: each packet received takes one off, each new highest number adds its distance from the last.
  let reported = 0;
  let max = unwrapped[0]! - 1;
  let postponed: number | null = null;
  for (const seq of unwrapped) {
    reported -= 1;
    if (postponed !== null) {
      const restart = seq === postponed + 1;
      postponed = null;
      if (restart) {
        // Both packets count in order from just before the jump (two new numbers): the gap is not loss.
        reported += 2;
        max = seq;
        continue;
      }
    }
    if (Math.abs(seq - max) > reorderingThreshold) {
      // Held until the next packet shows whether the stream restarted; counted received either way.
      postponed = seq;
      continue;
    }
    if (seq > max) {
      reported += seq - max;
      max = seq;
    }
  }
  return { received: unwrapped.length, expected, lost: expected - unwrapped.length, reportedLost: Math.max(0, reported) };
}

export interface StreamLoss extends SequenceLoss {
  ssrc: number;
  payloadType: number;
  /** The DSCP it was received with (the router's class: AF41 34, AF42 36, AF43 38). */
  dscp: number;
}

/** Every RTP stream (SSRC, payload type and mark) of a capture with at least minPackets packets, most packets first. */
export function streamLosses(packets: readonly UdpPacket[], minPackets = 10): StreamLoss[] {
  const streams = new Map<string, { ssrc: number; payloadType: number; dscp: number; seqs: number[] }>();
  for (const p of packets) {
    const ssrc = rtpSsrc(p.payload);
    if (ssrc === undefined) continue;
    const payloadType = p.payload[1]! & 0x7f;
    const dscp = p.tos >> 2;
    const key = `${ssrc}/${payloadType}/${dscp}`;
    const s = streams.get(key) ?? { ssrc, payloadType, dscp, seqs: [] };
    s.seqs.push(p.payload.readUInt16BE(2));
    streams.set(key, s);
  }
  return [...streams.values()]
    .filter((s) => s.seqs.length >= minPackets)
    .map(({ seqs, ...id }) => ({ ...id, ...sequenceLoss(seqs) }))
    .sort((a, b) => b.received - a.received);
}
