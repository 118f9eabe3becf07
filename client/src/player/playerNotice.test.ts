import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StreamInfo, StreamState } from '@pels/shared/protocol/signaling';
import type { PlayerState } from './controller';
import { mediaPathNotice, playerNotice, uptaNotice } from './playerNotice';

const stream = (state: StreamState, error?: string): StreamInfo => ({
  id: 'a',
  name: 'A',
  source: 'lavfi:testsrc2',
  state,
  ...(error ? { error } : {}),
  width: 640,
  height: 360,
  renditions: [{ width: 640, height: 360, bitrateKbps: 1000 }],
  frameRate: 30,
  ticksPerFrame: 3000,
  framesIngested: 0,
  restarts: 0,
  audio: null,
});

test('the source: a message while it is not running, what happens next, nothing while it runs', () => {
  const cases: Array<[PlayerState, StreamState, RegExp | undefined]> = [
    ['playing', 'running', undefined],
    ['playing', 'stalled', /stopped sending.*restarts it/],
    ['playing', 'restarting', /being restarted.*resumes/],
    ['connecting', 'restarting', /being restarted/],
    ['playing', 'failed', /failed.*keeps trying/],
    ['connecting', 'starting', /starting/],
    ['playing', 'stopped', /stopped/],
    // Between sessions the stream's state is stale: the session's error is what counts.
    ['error', 'stalled', undefined],
    ['idle', 'failed', undefined],
  ];
  for (const [state, streamState, expected] of cases) {
    const notice = playerNotice({ state, error: undefined, streams: [stream(streamState)], streamId: 'a' });
    if (expected === undefined) assert.equal(notice, undefined, `${state}, ${streamState}`);
    else {
      assert.equal(notice?.cause, streamState);
      assert.match(notice.text, expected, `${state}, ${streamState}`);
    }
  }
});

test("the source's error comes as the detail when the server gives it; another stream's state does not count", () => {
  const restarting = stream('restarting', 'ffmpeg exited (SIGKILL)');
  assert.equal(playerNotice({ state: 'playing', error: undefined, streams: [restarting], streamId: 'a' })?.detail, 'ffmpeg exited (SIGKILL)');
  assert.equal(playerNotice({ state: 'playing', error: undefined, streams: [{ ...restarting, id: 'b' }], streamId: 'a' }), undefined);
});

test('a viewer the server ended for good: why, and that it does not come back by itself', () => {
  const notice = playerNotice({
    state: 'disconnected',
    error: 'the server closed this viewer: disconnected by the operator',
    streams: [stream('stalled')],
    streamId: 'a',
  });
  assert.deepEqual(notice, {
    cause: 'disconnected',
    text: 'The server closed this viewer: disconnected by the operator. This player does not reconnect by itself.',
  });
});

test('a browser or page that cannot play: the reason is the notice, whatever the stream does', () => {
  const notice = playerNotice({ state: 'unsupported', error: 'This page is not a secure context (...)', streams: [stream('stalled')], streamId: 'a' });
  assert.deepEqual(notice, { cause: 'unsupported', text: 'This page is not a secure context (...)' });
});

test('the media path: nothing over UDP or before ICE has chosen; over TCP or a relay, that the video is best effort and why', () => {
  assert.equal(mediaPathNotice(null), undefined);
  assert.equal(mediaPathNotice('udp'), undefined);
  assert.match(mediaPathNotice('tcp')!, /over TCP \(this network blocks UDP to the server\): the server sends it best effort, without PELS colors/);
  assert.match(mediaPathNotice('relay')!, /through a TURN relay: the server sends it best effort/);
});

test('UPTA: a paused viewer is told why and that it resumes by itself; base only is an info; full says nothing', () => {
  const status = (state: 'full' | 'baseOnly' | 'paused') => ({ state, since: '2026-01-01T00:00:00.000Z', reason: 'the base layer would show 15.0 dB, below the 20 dB floor', probing: false, expectedDb: 15 });
  const paused = uptaNotice(status('paused'))!;
  assert.equal(paused.kind, 'warning');
  assert.match(paused.text, /^Video paused: .*15\.0 dB.*resumes by itself/);
  assert.equal(uptaNotice(status('baseOnly'))?.kind, 'info');
  assert.equal(uptaNotice(status('full')), undefined);
  assert.equal(uptaNotice(null), undefined);
});
