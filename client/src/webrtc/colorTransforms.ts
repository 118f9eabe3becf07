/**
 * Hands each color receiver's encoded frames to the player worker. The transform is set
 * synchronously inside the RTCPeerConnection `track` event (see
 * recvTransportPeerConnection.ts for why). The event tells the color by the MSID stream
 * id the player gave the consumer (`streamId` in transport.consume()).
 */
import { COLORS, type Color } from '@pels/shared/pels/color';
import type { TransformOptions } from '../player/workerProtocol';

const MSID_PREFIX = 'pels-';

/** The MSID stream id to consume a color's track with. */
export function msidStreamIdFor(color: Color): string {
  return MSID_PREFIX + color;
}

function colorOfStreamId(id: string): Color | undefined {
  return COLORS.find((c) => msidStreamIdFor(c) === id);
}

export function attachColorTransforms(pc: RTCPeerConnection, worker: Worker): void {
  // Chromium may fire `track` twice for one receiver; a receiver takes one transform.
  const attached = new WeakSet<RTCRtpReceiver>();
  pc.addEventListener('track', (ev) => {
    if (attached.has(ev.receiver)) return;
    const color = ev.streams.map((s) => colorOfStreamId(s.id)).find((c) => c !== undefined);
    if (!color) return;
    attached.add(ev.receiver);
    const options: TransformOptions = { color };
    ev.receiver.transform = new RTCRtpScriptTransform(worker, options);
  });
}
