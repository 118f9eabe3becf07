/**
 * WHIP's offer reader under fuzzed input: random bytes, random text, and an
 * OBS-like offer cut, shuffled, with lines dropped, doubled or replaced by
 * hostile ones. Whatever comes in, the answer is a plan or an SdpError with a
 * short message (no stack, no more than a line's start quoted back); a plan
 * made is one the answer can be written from. Seeded: a failure names its seed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mulberry32 } from '@pels/shared/pels/syntheticStream';
import { MAX_SDP_BYTES, parseSdpOffer, SdpError } from './sdp';
import { answerSdp, planPublish, type LocalTransport } from './whipOffer';

/** An offer as OBS's WHIP output makes it: H.264 and Opus, bundled, SSRCs named. */
const BASE = [
  'v=0',
  'o=rtc 3020342093 0 IN IP4 127.0.0.1',
  's=-',
  't=0 0',
  'a=group:BUNDLE 0 1',
  'a=ice-ufrag:fuzz',
  'a=ice-pwd:fuzzfuzzfuzzfuzzfuzzfuzz',
  'a=fingerprint:sha-256 01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF',
  'a=setup:actpass',
  'm=audio 9 UDP/TLS/RTP/SAVPF 111',
  'c=IN IP4 0.0.0.0',
  'a=mid:0',
  'a=sendonly',
  'a=rtcp-mux',
  'a=rtpmap:111 opus/48000/2',
  'a=fmtp:111 minptime=10;useinbandfec=1',
  'a=ssrc:42 cname:obs',
  'm=video 9 UDP/TLS/RTP/SAVPF 96 97',
  'c=IN IP4 0.0.0.0',
  'a=mid:1',
  'a=sendonly',
  'a=rtcp-mux',
  'a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid',
  'a=rtpmap:96 H264/90000',
  'a=rtcp-fb:96 nack',
  'a=rtcp-fb:96 nack pli',
  'a=fmtp:96 profile-level-id=42e01f;packetization-mode=1;level-asymmetry-allowed=1',
  'a=rtpmap:97 rtx/90000',
  'a=fmtp:97 apt=96',
  'a=ssrc-group:FID 43 44',
  'a=ssrc:43 cname:obs',
  'a=ssrc:44 cname:obs',
];

/** Lines a hostile or broken publisher might write. */
const HOSTILE = [
  'a=rtpmap:128 H264/90000',
  'a=rtpmap:96 H264/99999999999999999999999',
  'a=rtpmap:96 H264/90000/-1',
  'a=rtpmap: H264/90000',
  'a=rtpmap:96',
  'a=fmtp:96',
  'a=fmtp:96 packetization-mode=1;profile-level-id=',
  'a=fmtp:97 apt=99999999999',
  'a=rtcp-fb:*',
  'a=rtcp-fb:96 ' + 'nack '.repeat(200),
  'a=extmap:0 urn:ietf:params:rtp-hdrext:sdes:mid',
  'a=extmap:256 urn:ietf:params:rtp-hdrext:sdes:mid',
  'a=extmap:1/sendrecv',
  'a=ssrc:4294967296 cname:x',
  'a=ssrc:-1 cname:x',
  'a=ssrc:',
  'a=ssrc-group:FID 43',
  'a=ssrc-group:FID 43 44 45',
  'a=ssrc-group:FID x y',
  'a=setup:holdconn',
  'a=setup:',
  'a=fingerprint:',
  'a=fingerprint:sha-256',
  'a=fingerprint:md5 00:11',
  'a=group:BUNDLE',
  'a=group:BUNDLE 1 1 1',
  'a=mid:',
  'a=mid:0',
  'a=ice-ufrag:',
  'a=ice-pwd:',
  'm=video',
  'm=video -9 UDP/TLS/RTP/SAVPF 96',
  'm=video 99999999999999999999 UDP/TLS/RTP/SAVPF 96',
  'm=video 0 UDP/TLS/RTP/SAVPF 96',
  'm=audio 9 RTP/AVP',
  'm=application 9 UDP/DTLS/SCTP webrtc-datachannel',
  'a=recvonly',
  'a=inactive',
  'a=__proto__:x',
  'a=constructor',
  'a=toString:1',
  'v=1',
  'x=' + 'y'.repeat(5000),
  'a=' + '\u0000'.repeat(100),
  'a=mid:\u202e\ud83d\ude00',
  '',
  '=',
  'A=b',
];

const LOCAL: LocalTransport = {
  ice: { usernameFragment: 'u', password: 'p', iceLite: true },
  candidates: [{ foundation: 'f', priority: 1, ip: '127.0.0.1', address: '127.0.0.1', protocol: 'udp', port: 40000, type: 'host' }],
  fingerprint: { algorithm: 'sha-256', value: 'AA' },
  setup: 'passive',
};

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

function mutate(r: Rand, lines: string[]): string[] {
  const out = [...lines];
  for (let n = 1 + Math.floor(r() * 4); n > 0; n--) {
    const at = Math.floor(r() * out.length);
    switch (Math.floor(r() * 7)) {
      case 0:
        out.splice(at, 1);
        break;
      case 1:
        out.splice(at, 0, out[at] ?? '');
        break;
      case 2:
        out.splice(at, 1, pick(r, HOSTILE));
        break;
      case 3:
        out.splice(at, 0, pick(r, HOSTILE));
        break;
      case 4: {
        const other = Math.floor(r() * out.length);
        [out[at], out[other]] = [out[other]!, out[at]!];
        break;
      }
      case 5: {
        // One character replaced by any code unit.
        const line = out[at] ?? '';
        const i = Math.floor(r() * (line.length + 1));
        out[at] = line.slice(0, i) + String.fromCharCode(Math.floor(r() * 0x10000)) + line.slice(i + 1);
        break;
      }
      default:
        // A number made huge, negative, fractional or not a number.
        out[at] = (out[at] ?? '').replace(/\d+/, pick(r, ['0', '-1', '1.5', '1e309', 'NaN', '4294967295', '18446744073709551616']));
    }
  }
  return out;
}

function randomText(r: Rand): string {
  const n = Math.floor(r() * 3000);
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(r() < 0.8 ? 32 + Math.floor(r() * 95) : Math.floor(r() * 0x10000));
  return r() < 0.5 ? s : `v=0\r\n${s}`;
}

/** The offer read and planned: a plan whose answer can be written, or an SdpError that says briefly what is wrong. */
function assertAnswered(offer: string, what: string): 'plan' | 'refused' {
  let plan;
  try {
    plan = planPublish(parseSdpOffer(offer));
  } catch (err) {
    assert.ok(err instanceof SdpError, `${what}: ${String(err)} is not an SdpError\n${(err as Error).stack}`);
    assert.ok(err.message.length > 0 && err.message.length <= 300, `${what}: message of ${err.message.length} characters`);
    assert.doesNotMatch(err.message, /\n\s+at |node_modules|\/src\//, what);
    return 'refused';
  }
  const answer = answerSdp(plan, LOCAL, '1');
  assert.ok(answer.startsWith('v=0\r\n'), what);
  for (const s of plan.sections) {
    if (!('taken' in s)) continue;
    for (const c of s.taken.rtpParameters.codecs) assert.ok(Number.isInteger(c.payloadType) && c.payloadType >= 0 && c.payloadType <= 127, `${what}: payload type ${c.payloadType}`);
    for (const e of s.taken.rtpParameters.encodings ?? []) if (e.ssrc !== undefined) assert.ok(Number.isInteger(e.ssrc) && e.ssrc >= 0 && e.ssrc < 2 ** 32, `${what}: ssrc ${e.ssrc}`);
  }
  return 'plan';
}

test('the unmutated offer is taken (the fuzzing starts from one that works)', () => {
  assert.equal(assertAnswered(BASE.join('\r\n'), 'base'), 'plan');
});

test('3000 mutated offers: each answered by a plan or a short SdpError, never another exception', () => {
  const outcomes = { plan: 0, refused: 0 };
  for (let seed = 1; seed <= 3000; seed++) {
    const r = mulberry32(seed);
    const lines = mutate(r, BASE);
    const eol = pick(r, ['\r\n', '\n', '\r', '\r\r\n']);
    let offer = lines.join(eol);
    if (r() < 0.1) offer = offer.slice(0, Math.floor(r() * offer.length));
    outcomes[assertAnswered(offer, `seed ${seed}`)]++;
  }
  // Both kinds occur: the mutations are neither all harmless nor all fatal.
  assert.ok(outcomes.plan > 100 && outcomes.refused > 100, JSON.stringify(outcomes));
});

test('1000 random texts and byte strings: each refused with a short SdpError', () => {
  for (let seed = 1; seed <= 1000; seed++) {
    const r = mulberry32(100_000 + seed);
    const text = seed % 2 ? randomText(r) : Buffer.from(Array.from({ length: Math.floor(r() * 2000) }, () => Math.floor(r() * 256))).toString('utf8');
    assert.equal(assertAnswered(text, `seed ${100_000 + seed}`), 'refused');
  }
});

test('an offer over the size limit is refused before it is read; a line longer than the limit quoted back is cut', () => {
  assert.throws(() => parseSdpOffer(BASE.join('\r\n') + '\r\na=x:' + 'y'.repeat(MAX_SDP_BYTES)), /over 32768 bytes/);
  const long = 'z'.repeat(20_000);
  for (const line of [`a=rtpmap:96 ${long}`, `a=fingerprint:${long}`, `a=extmap:${long}`, `m=${long}`, `a=setup:${long}`]) {
    assertAnswered([...BASE, line].join('\r\n'), line.slice(0, 20));
  }
});
