import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRequest } from './signaling';

const vp8 = { kind: 'video', mimeType: 'video/VP8', clockRate: 90000, preferredPayloadType: 96, rtcpFeedback: [{ type: 'nack' }, { type: 'nack', parameter: 'pli' }] };
const fingerprint = { algorithm: 'sha-256', value: 'AB:CD' };

test('parseRequest: WebRTC parameter objects of the wrong shape are bad_request, with the field named', () => {
  const cases: Array<[string, unknown, string | null]> = [
    ['consume', { rtpCapabilities: { codecs: [vp8], headerExtensions: [] } }, null],
    ['consume', { rtpCapabilities: {} }, null],
    ['consume', { rtpCapabilities: { codecs: 1 } }, 'data.rtpCapabilities.codecs'],
    ['consume', { rtpCapabilities: { codecs: [{ ...vp8, clockRate: 'fast' }] } }, 'data.rtpCapabilities.codecs.0.clockRate'],
    ['consume', { rtpCapabilities: { codecs: [{ ...vp8, rtcpFeedback: 'nack' }] } }, 'data.rtpCapabilities.codecs.0.rtcpFeedback'],
    ['consume', { rtpCapabilities: { headerExtensions: [{ kind: 'video', uri: 'x', preferredId: 0 }] } }, 'data.rtpCapabilities.headerExtensions.0.preferredId'],
    ['consume', { rtpCapabilities: { codecs: Array(65).fill(vp8) } }, 'data.rtpCapabilities.codecs'],
    ['connectTransport', { dtlsParameters: { role: 'client', fingerprints: [fingerprint] } }, null],
    ['connectTransport', { dtlsParameters: { fingerprints: 'AB:CD' } }, 'data.dtlsParameters.fingerprints'],
    ['connectTransport', { dtlsParameters: { role: 'boss', fingerprints: [fingerprint] } }, 'data.dtlsParameters.role'],
    ['connectTransport', { dtlsParameters: { fingerprints: [] } }, 'data.dtlsParameters.fingerprints'],
  ];
  for (const [method, data, badAt] of cases) {
    const r = parseRequest(JSON.stringify({ id: 7, method, data }));
    if (badAt === null) {
      assert.equal(r.ok, true, `${method} ${JSON.stringify(data)}`);
      continue;
    }
    assert.equal(r.ok, false, `${method} ${JSON.stringify(data)}`);
    if (r.ok) continue;
    assert.equal(r.id, 7);
    assert.equal(r.error.code, 'bad_request');
    assert.match(r.error.message, new RegExp(`at ${badAt.replace(/\./g, '\\.')}:`), r.error.message);
  }
});

test('parseRequest: setRendition takes a rendition index or auto', () => {
  for (const rendition of ['auto', 0, 1]) assert.equal(parseRequest(JSON.stringify({ id: 1, method: 'setRendition', data: { rendition } })).ok, true, String(rendition));
  for (const rendition of ['full', -1, 1.5, null]) {
    const r = parseRequest(JSON.stringify({ id: 1, method: 'setRendition', data: { rendition } }));
    assert.equal(r.ok, false, String(rendition));
    if (!r.ok) assert.match(r.error.message, /at data\.rendition:/);
  }
});

test("parseRequest: a join may name no stream and ask for the transport; a consume's sound, colors, resume and rendition are checked as their own requests' are", () => {
  const caps = { codecs: [vp8] };
  const cases: Array<[string, unknown, string | null]> = [
    ['join', {}, null],
    ['join', { transport: true, mode: 'pels' }, null],
    ['join', { streamId: '' }, 'data.streamId'],
    ['join', { transport: 'yes' }, 'data.transport'],
    ['consume', { rtpCapabilities: caps, audio: true, resume: true, colors: ['green', 'red'], rendition: 'auto' }, null],
    ['consume', { rtpCapabilities: caps, colors: ['yellow'] }, 'data.colors'],
    ['consume', { rtpCapabilities: caps, rendition: -1 }, 'data.rendition'],
    ['consume', { rtpCapabilities: caps, resume: 1 }, 'data.resume'],
  ];
  for (const [method, data, badAt] of cases) {
    const r = parseRequest(JSON.stringify({ id: 3, method, data }));
    assert.equal(r.ok, badAt === null, `${method} ${JSON.stringify(data)}`);
    if (!r.ok && badAt !== null) assert.match(r.error.message, new RegExp(`at ${badAt.replace(/\./g, '\\.')}:`), r.error.message);
  }
});
