import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSdpOffer, SdpError } from './sdp';
import { answerSdp, fmtpParameters, planPublish, type LocalTransport } from './whipOffer';

/** An offer as Chromium makes it for H.264 (mode 0 and 1) with RTX, and Opus, bundled; a data channel section too. */
const OFFER = [
  'v=0',
  'o=- 4611731400430051336 2 IN IP4 127.0.0.1',
  's=-',
  't=0 0',
  'a=group:BUNDLE 0 1 2',
  'a=msid-semantic: WMS',
  'm=video 9 UDP/TLS/RTP/SAVPF 100 101 102 103',
  'c=IN IP4 0.0.0.0',
  'a=ice-ufrag:Ab1x',
  'a=ice-pwd:uv7pB0qUaFnJrV4Wq9RDY1sT',
  'a=fingerprint:sha-256 12:AB:34:CD:56:EF:78:90:12:AB:34:CD:56:EF:78:90:12:AB:34:CD:56:EF:78:90:12:AB:34:CD:56:EF:78:90',
  'a=setup:actpass',
  'a=mid:0',
  'a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid',
  'a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01',
  'a=extmap:13 urn:3gpp:video-orientation',
  'a=sendonly',
  'a=rtcp-mux',
  'a=rtcp-rsize',
  'a=rtpmap:100 H264/90000',
  'a=rtcp-fb:100 goog-remb',
  'a=rtcp-fb:100 transport-cc',
  'a=rtcp-fb:100 ccm fir',
  'a=rtcp-fb:100 nack',
  'a=rtcp-fb:100 nack pli',
  'a=fmtp:100 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f',
  'a=rtpmap:101 rtx/90000',
  'a=fmtp:101 apt=100',
  'a=rtpmap:102 H264/90000',
  'a=rtcp-fb:102 nack',
  'a=rtcp-fb:102 nack pli',
  'a=rtcp-fb:102 transport-cc',
  'a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f',
  'a=rtpmap:103 rtx/90000',
  'a=fmtp:103 apt=102',
  'a=ssrc-group:FID 1111 2222',
  'a=ssrc:1111 cname:x',
  'a=ssrc:2222 cname:x',
  'm=audio 9 UDP/TLS/RTP/SAVPF 111 63',
  'c=IN IP4 0.0.0.0',
  'a=ice-ufrag:Ab1x',
  'a=ice-pwd:uv7pB0qUaFnJrV4Wq9RDY1sT',
  'a=fingerprint:sha-256 12:AB:34:CD:56:EF:78:90:12:AB:34:CD:56:EF:78:90:12:AB:34:CD:56:EF:78:90:12:AB:34:CD:56:EF:78:90',
  'a=setup:actpass',
  'a=mid:1',
  'a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid',
  'a=sendonly',
  'a=rtcp-mux',
  'a=rtpmap:111 opus/48000/2',
  'a=rtcp-fb:111 transport-cc',
  'a=fmtp:111 minptime=10;useinbandfec=1',
  'a=rtpmap:63 red/48000/2',
  'a=ssrc:3333 cname:x',
  'm=application 9 UDP/DTLS/SCTP webrtc-datachannel',
  'c=IN IP4 0.0.0.0',
  'a=mid:2',
  'a=sctp-port:5000',
  '',
].join('\r\n');

const LOCAL: LocalTransport = {
  ice: { usernameFragment: 'srvufrag', password: 'srvpassword', iceLite: true },
  candidates: [
    { foundation: 'udpcandidate', priority: 1076302079, ip: '127.0.0.1', address: '127.0.0.1', protocol: 'udp', port: 40000, type: 'host' },
    { foundation: 'tcpcandidate', priority: 1076276479, ip: '127.0.0.1', address: '127.0.0.1', protocol: 'tcp', port: 40000, type: 'host', tcpType: 'passive' },
  ],
  fingerprint: { algorithm: 'sha-256', value: 'AA:BB' },
  setup: 'passive',
};

test('Chromium\'s offer: H.264 mode 1 with its RTX and Opus are taken, mode 0, RED and the data channel are not', () => {
  const plan = planPublish(parseSdpOffer(OFFER));
  const [video, audio, data] = plan.sections;
  assert.ok(video && 'taken' in video && audio && 'taken' in audio && data && 'rejected' in data);
  assert.deepEqual(video.taken.codecs.map((c) => c.payloadType), [102, 103]);
  assert.deepEqual(video.taken.rtpParameters.encodings, [{ ssrc: 1111, rtx: { ssrc: 2222 } }]);
  assert.deepEqual(video.taken.rtpParameters.codecs[0]!.parameters, { 'level-asymmetry-allowed': 1, 'packetization-mode': 1, 'profile-level-id': '42e01f' });
  assert.deepEqual(video.taken.rtpParameters.codecs[0]!.rtcpFeedback, [{ type: 'nack', parameter: '' }, { type: 'nack', parameter: 'pli' }, { type: 'transport-cc', parameter: '' }]);
  // The orientation extension is not one the server reads.
  assert.deepEqual(video.taken.extensions.map((e) => e.id), [4, 3]);
  assert.deepEqual(audio.taken.codecs.map((c) => c.payloadType), [111]);
  assert.deepEqual(audio.taken.rtpParameters.encodings, [{ ssrc: 3333 }]);
  assert.deepEqual(plan.remoteDtls.role, 'client');
  assert.equal(plan.remoteDtls.fingerprints[0]!.algorithm, 'sha-256');
});

test('the answer: ICE-lite, the server\'s credentials, passive DTLS, recvonly, the taken codecs, every candidate; the data channel rejected', () => {
  const answer = answerSdp(planPublish(parseSdpOffer(OFFER)), LOCAL, '1');
  const lines = answer.split('\r\n');
  assert.ok(answer.endsWith('\r\n'));
  for (const want of ['a=ice-lite', 'a=group:BUNDLE 0 1', 'm=video 9 UDP/TLS/RTP/SAVPF 102 103', 'a=rtpmap:102 H264/90000', 'a=fmtp:103 apt=102', 'm=audio 9 UDP/TLS/RTP/SAVPF 111', 'a=rtpmap:111 opus/48000/2', 'a=setup:passive', 'a=recvonly', 'a=ice-ufrag:srvufrag', 'a=fingerprint:sha-256 AA:BB', 'a=candidate:tcpcandidate 1 tcp 1076276479 127.0.0.1 40000 typ host tcptype passive', 'm=application 0 UDP/DTLS/SCTP webrtc-datachannel']) {
    assert.ok(lines.includes(want), want);
  }
  assert.ok(!answer.includes('red/48000'));
  assert.ok(!answer.includes('packetization-mode=0'));
  // The answer parses as an offer would: well-formed lines.
  assert.equal(parseSdpOffer(answer).media.length, 3);
});

test('offers the server cannot take are refused with what is wrong', () => {
  const cases: [string, RegExp][] = [
    ['hello', /must start with "v=0"/],
    ['v=0\r\ns=-\r\n', /no media sections/],
    ['v=0\r\nbad line\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n', /malformed SDP line/],
    [OFFER.replace(/packetization-mode=1/, 'packetization-mode=0'), /no H.264 video/],
    [OFFER.replace(/a=rtpmap:102 H264/, 'a=rtpmap:102 AV1'), /no H.264 video/],
    [OFFER.replaceAll('a=ice-pwd:uv7pB0qUaFnJrV4Wq9RDY1sT\r\n', ''), /no ICE credentials/],
    [OFFER.replaceAll(/a=fingerprint:[^\r]*\r\n/g, ''), /no DTLS fingerprint/],
    [OFFER.replace('a=rtcp-mux\r\n', ''), /does not multiplex RTCP/],
    [OFFER.replace('a=group:BUNDLE 0 1 2', 'a=group:BUNDLE 0'), /not in the offer's BUNDLE group/],
    [OFFER.replace('a=rtpmap:102 H264/90000', 'a=rtpmap:102 H264/x'), /malformed a=rtpmap/],
    [OFFER.replace(/a=ssrc[^\r]*\r\n/g, '').replaceAll(/a=extmap:4 [^\r]*\r\n/g, ''), /names no SSRC/],
    ['v=0\r\n' + 'a=x\r\n'.repeat(8000), /over 32768 bytes/],
  ];
  for (const [offer, message] of cases) assert.throws(() => planPublish(parseSdpOffer(offer)), (err: unknown) => err instanceof SdpError && message.test(err.message), String(message));
});

test('fmtp parameters: integers as numbers, profile-level-id kept as hex text', () => {
  assert.deepEqual(fmtpParameters('profile-level-id=420029; packetization-mode=1;x;apt=96'), { 'profile-level-id': '420029', 'packetization-mode': 1, apt: 96 });
});
