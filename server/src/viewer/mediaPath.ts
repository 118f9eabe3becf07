/**
 * How a viewer's media travels, and what that allows. Each color is told
 * apart on the path by its DSCP, which the kernel sets per UDP datagram; over
 * ICE-TCP a packet is a slice of one byte stream, and through a TURN relay the
 * relay re-sends it without the mark. So only a direct UDP path can be served
 * PELS; any other is served best effort.
 */
import type { FlowModeName, MediaTransport } from '@pels/shared/protocol/api';

/**
 * The transport, from the ICE tuple the server selected (null: none yet) and
 * whether the player says its selected candidate is a TURN relay (the server
 * sees a relay only as a UDP peer).
 */
export function mediaTransport(tupleProtocol: 'udp' | 'tcp' | null, relayed: boolean): MediaTransport | null {
  if (tupleProtocol === null) return null;
  if (tupleProtocol === 'tcp') return 'tcp';
  return relayed ? 'relay' : 'udp';
}

/** Whether each packet's color can reach the viewer (unknown until ICE has chosen: assumed so). */
export function canColor(transport: MediaTransport | null): boolean {
  return transport === null || transport === 'udp';
}

/** The mode in force: the one asked for where the path can carry colors, best effort elsewhere. */
export function modeInForce(requested: FlowModeName, transport: MediaTransport | null): FlowModeName {
  // nack and best effort carry one DSCP anyway: only PELS needs a path that keeps colors.
  return requested === 'pels' && !canColor(transport) ? 'best-effort' : requested;
}
