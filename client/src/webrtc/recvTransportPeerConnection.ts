/**
 * Creates a mediasoup-client receive transport and returns the RTCPeerConnection behind it.
 *
 * Why: Chromium bypasses an RTCRtpScriptTransform set on a receiver once the
 * RTCPeerConnection's `track` event for that receiver has been dispatched (it
 * short-circuits the receiver's frame pipeline when the handlers return), so the
 * transform must be set synchronously inside that event. mediasoup-client 3.24 keeps
 * its RTCPeerConnection private, and its public `onRtpReceiver` consume option runs
 * after setRemoteDescription() resolves: a microtask after the event, too late.
 *
 * How: every mediasoup-client handler constructs its RTCPeerConnection synchronously
 * inside `device.createRecvTransport()`. For the duration of that call only, the global
 * constructor is a subclass that records its instances. This depends on no private
 * field name; if a future handler creates its connection elsewhere, this throws.
 */
import type { Device, types } from 'mediasoup-client';

export interface RecvTransportWithPc {
  transport: types.Transport;
  peerConnection: RTCPeerConnection;
}

export function createRecvTransportWithPeerConnection(device: Device, options: types.TransportOptions): RecvTransportWithPc {
  const Native = globalThis.RTCPeerConnection;
  const created: RTCPeerConnection[] = [];
  class Recording extends Native {
    constructor(configuration?: RTCConfiguration) {
      super(configuration);
      created.push(this);
    }
  }
  globalThis.RTCPeerConnection = Recording;
  let transport: types.Transport;
  try {
    transport = device.createRecvTransport(options);
  } finally {
    globalThis.RTCPeerConnection = Native;
  }
  const [peerConnection] = created;
  if (!peerConnection || created.length > 1) {
    transport.close();
    throw new Error(`mediasoup-client handler ${device.handlerName} did not create exactly one RTCPeerConnection`);
  }
  return { transport, peerConnection };
}
