import type { Color } from '@pels/shared/pels/color';

/** A PELS color, or the Internet queue's (non-video) traffic. */
export type TrafficClass = Color | 'internet';

/** The router's congestion label (paper section 5.2): (router ID, epoch z, p(k)). */
export interface RouterLabel {
  routerId: string;
  epoch: number;
  /** (R - C) / R over the last interval T (eq. 11); negative below capacity. */
  p: number;
}

export interface Packet {
  /** Index of the PELS flow, or -1 for cross traffic. */
  flow: number;
  cls: TrafficClass;
  bytes: number;
  /** Per (flow, class) sequence number: the receiver counts losses from gaps, as RTCP does. */
  seq: number;
  sentAtMs: number;
  /** Set by the router when it queues the packet. */
  enqueuedAtMs?: number;
  /** Set by the router when it queues the packet: the label current at that instant. */
  label?: RouterLabel;
}

/** The paper's packet size (section 6.1). */
export const PACKET_BYTES = 500;
