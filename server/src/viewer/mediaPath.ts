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

/** A viewer's mode: the one asked for (at its join, then by the operator) and the one in force on the path ICE chose. */
export class ViewerPath {
  /** In force: the requested mode, or best effort on a path that cannot carry colors. */
  private current: FlowModeName;
  /** The protocol of the ICE tuple in use, null before ICE has chosen one. */
  private tupleProtocol: 'udp' | 'tcp' | null = null;
  /** The player's report that its selected candidate is a TURN relay. */
  private relayed = false;

  constructor(public requested: FlowModeName) {
    this.current = requested;
  }

  get mode(): FlowModeName {
    return this.current;
  }

  /** How the media reaches the viewer, null until ICE has chosen. */
  get transport(): MediaTransport | null {
    return mediaTransport(this.tupleProtocol, this.relayed);
  }

  setTuple(protocol: 'udp' | 'tcp'): void {
    this.tupleProtocol = protocol;
  }

  setRelayed(relayed: boolean): void {
    this.relayed = relayed;
  }

  /** The mode now in force when it differs from the one before (and is now the current one); null: unchanged. */
  update(): FlowModeName | null {
    const mode = modeInForce(this.requested, this.transport);
    if (mode === this.current) return null;
    this.current = mode;
    return mode;
  }
}
