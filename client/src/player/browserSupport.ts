/**
 * What the player needs from the browser, checked before it connects: a
 * secure context (browsers offer WebCodecs only to https:// pages and to
 * http://localhost), WebRTC, WebCodecs' VideoDecoder and RTCRtpScriptTransform.
 * Without one the player cannot work, so it says exactly what is missing and
 * how to get it instead of trying and failing.
 */

export interface BrowserFeatures {
  secureContext: boolean;
  peerConnection: boolean;
  videoDecoder: boolean;
  scriptTransform: boolean;
}

export function browserFeatures(g: typeof globalThis): BrowserFeatures {
  return {
    secureContext: g.isSecureContext === true,
    peerConnection: typeof g.RTCPeerConnection === 'function',
    videoDecoder: typeof g.VideoDecoder === 'function',
    scriptTransform: typeof g.RTCRtpScriptTransform === 'function',
  };
}

const UPDATE = 'Open the page in a current Chromium-based browser (Chrome, Edge), where the player is tested, or update this one.';

/** Why the player cannot run here and how to fix it, or undefined when it can. */
export function unsupportedReason(f: BrowserFeatures, location: { protocol: string; host: string }): string | undefined {
  // First: outside a secure context the browser hides WebCodecs, so that is the cause to fix.
  if (!f.secureContext) {
    return (
      `This page is not a secure context (it was opened as ${location.protocol}//${location.host}), and browsers offer WebCodecs, ` +
      `which the player needs to decode the video, only to secure pages. Open it over HTTPS (https://${location.host}/): ` +
      'the server serves HTTPS when started with TLS_CERT_FILE and TLS_KEY_FILE (README, "Serving other machines"). ' +
      'On the server\'s own machine, http://localhost works too.'
    );
  }
  const missing = [
    !f.peerConnection && 'WebRTC (RTCPeerConnection), which brings the video',
    !f.videoDecoder && 'WebCodecs (VideoDecoder), which decodes the video',
    !f.scriptTransform && 'WebRTC Encoded Transform (RTCRtpScriptTransform), which hands the player the frames of the three color streams',
  ].filter((m): m is string => m !== false);
  if (!missing.length) return undefined;
  return `This browser has no ${missing.join(', and no ')}. ${UPDATE}`;
}
