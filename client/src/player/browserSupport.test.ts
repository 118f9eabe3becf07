import assert from 'node:assert/strict';
import { test } from 'node:test';
import { browserFeatures, unsupportedReason, type BrowserFeatures } from './browserSupport';

const all: BrowserFeatures = { secureContext: true, peerConnection: true, videoDecoder: true, scriptTransform: true };
const at = { protocol: 'http:', host: '192.168.1.20:8080' };

test('a browser with everything in a secure context plays', () => {
  assert.equal(unsupportedReason(all, { protocol: 'https:', host: 'pels.example.org' }), undefined);
});

test('outside a secure context: says so, names the address, and how to fix it (HTTPS with the TLS variables, or localhost)', () => {
  // Outside a secure context WebCodecs is hidden too: the context is the cause named.
  const text = unsupportedReason({ ...all, secureContext: false, videoDecoder: false }, at)!;
  assert.match(text, /^This page is not a secure context \(it was opened as http:\/\/192\.168\.1\.20:8080\)/);
  assert.match(text, /WebCodecs, which the player needs to decode the video, only to secure pages/);
  assert.match(text, /Open it over HTTPS \(https:\/\/192\.168\.1\.20:8080\/\)/);
  assert.match(text, /TLS_CERT_FILE and TLS_KEY_FILE/);
  assert.match(text, /http:\/\/localhost works too/);
  assert.doesNotMatch(text, /RTCRtpScriptTransform/);
});

test('a secure page in a browser without WebCodecs or RTCRtpScriptTransform names each missing feature and what to use', () => {
  const noDecoder = unsupportedReason({ ...all, videoDecoder: false }, at)!;
  assert.match(noDecoder, /^This browser has no WebCodecs \(VideoDecoder\), which decodes the video\. Open the page in a current Chromium-based browser/);
  const noTransform = unsupportedReason({ ...all, scriptTransform: false }, at)!;
  assert.match(noTransform, /^This browser has no WebRTC Encoded Transform \(RTCRtpScriptTransform\), which hands the player the frames/);
  const neither = unsupportedReason({ ...all, videoDecoder: false, scriptTransform: false }, at)!;
  assert.match(neither, /no WebCodecs \(VideoDecoder\).*, and no WebRTC Encoded Transform \(RTCRtpScriptTransform\)/);
  assert.match(unsupportedReason({ ...all, peerConnection: false }, at)!, /no WebRTC \(RTCPeerConnection\)/);
});

test('browserFeatures reads the globals', () => {
  const g = { isSecureContext: true, RTCPeerConnection: class {}, VideoDecoder: class {} } as unknown as typeof globalThis;
  assert.deepEqual(browserFeatures(g), { secureContext: true, peerConnection: true, videoDecoder: true, scriptTransform: false });
});
