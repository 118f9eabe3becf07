import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { DEFAULT_ENCODE, ffmpegArgs, ffmpegStdin, type ReadableSource } from './sourceSpec';

const small = { ...DEFAULT_ENCODE, width: 160, height: 90, bitrateKbps: 200 };

/** The input part of the arguments: everything before the first output option. */
const inputArgs = (spec: ReadableSource) => {
  const args = ffmpegArgs(spec, small);
  return args.slice(args.indexOf('-loglevel') + 2, args.indexOf('-an'));
};

test('a URL goes to FFmpeg on its stdin, quoted for the concat list, never in its arguments', () => {
  const spec: ReadableSource = { kind: 'url', url: "rtmp://user:s3cret@h/app/it's", scheme: 'rtmp' };
  assert.ok(!ffmpegArgs(spec, small).some((a) => a.includes('s3cret')));
  assert.equal(ffmpegStdin(spec), "ffconcat version 1.0\nfile 'rtmp://user:s3cret@h/app/it'\\''s'\n");
  assert.equal(ffmpegStdin({ kind: 'lavfi', graph: 'testsrc2', generator: 'testsrc2' }), undefined);
});

test('each kind gets its protocol whitelist; a file is named file:<path>', () => {
  assert.deepEqual(inputArgs({ kind: 'file', path: '/srv/media/concat:a|b.mp4' }), [
    '-re', '-stream_loop', '-1', '-protocol_whitelist', 'file', '-i', 'file:/srv/media/concat:a|b.mp4',
  ]);
  assert.deepEqual(inputArgs({ kind: 'url', url: 'https://h/a.m3u8', scheme: 'https' }), [
    '-re', '-f', 'concat', '-safe', '0', '-protocol_whitelist', 'pipe,http,https,tcp,tls,crypto', '-i', 'pipe:0',
  ]);
  assert.deepEqual(inputArgs({ kind: 'url', url: 'rtsp://h/a', scheme: 'rtsp' }), ['-re', '-f', 'concat', '-safe', '0', '-protocol_whitelist', 'pipe,rtsp,rtp,udp,tcp', '-i', 'pipe:0']);
  assert.deepEqual(inputArgs({ kind: 'lavfi', graph: 'testsrc2', generator: 'testsrc2' }), ['-re', '-f', 'lavfi', '-i', 'testsrc2']);
});

// Real FFmpeg with the product's arguments, against files and a local HTTP server.
let dir: string;
let http: Server;
let base: string;
const served = new Map<string, Buffer | string>();

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pels-whitelist-'));
  const segment = join(dir, 'seg.ts');
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=160x90:rate=30:duration=1', '-c:v', 'mpeg2video', segment]);
  http = createServer((req, res) => {
    const body = served.get(req.url ?? '');
    res.writeHead(body === undefined ? 404 : 200).end(body);
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  served.set('/seg.ts', readFileSync(segment));
});

after(async () => {
  http.close();
  await rm(dir, { recursive: true, force: true });
});

const playlist = (...segments: string[]) =>
  ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-TARGETDURATION:1', '#EXT-X-MEDIA-SEQUENCE:0', ...segments.flatMap((s) => ['#EXTINF:1.0,', s]), '#EXT-X-ENDLIST', ''].join('\n');

/** Runs FFmpeg on the source until it exits, writes its first output, or `ms` pass. */
async function runFfmpeg(spec: ReadableSource, ms = 10_000): Promise<{ outcome: 'exited' | 'output' | 'timeout'; stderr: string }> {
  const stdin = ffmpegStdin(spec);
  const proc = spawn('ffmpeg', ffmpegArgs(spec, small), { stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe', 'pipe'] });
  proc.stdin?.end(stdin);
  let stderr = '';
  proc.stderr!.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  (proc.stdio[3] as Readable).resume();
  const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), ms).unref());
  const outcome = await Promise.race([once(proc, 'close').then(() => 'exited' as const), once(proc.stdout!, 'data').then(() => 'output' as const), timer]);
  proc.kill('SIGKILL');
  return { outcome, stderr };
}

test('an HLS playlist over HTTP plays within its whitelist', async () => {
  served.set('/live.m3u8', playlist(`${base}/seg.ts`));
  const r = await runFfmpeg({ kind: 'url', url: `${base}/live.m3u8`, scheme: 'http' });
  assert.equal(r.outcome, 'output', r.stderr);
});

test('a session description over HTTP cannot make FFmpeg open RTP/UDP sockets', async () => {
  served.set('/cam.sdp', ['v=0', 'o=- 0 0 IN IP4 127.0.0.1', 's=x', 'c=IN IP4 127.0.0.1', 't=0 0', 'm=video 9 RTP/AVP 96', 'a=rtpmap:96 VP8/90000', ''].join('\r\n'));
  const r = await runFfmpeg({ kind: 'url', url: `${base}/cam.sdp`, scheme: 'http' });
  assert.equal(r.outcome, 'exited');
  assert.match(r.stderr, /Protocol 'rtp' not on whitelist 'pipe,http,https,tcp,tls,crypto'/);
});

test('an HLS playlist file cannot reach other files, protocols or hosts', async () => {
  const cases: Array<[string, RegExp]> = [
    ['file:///etc/passwd', /passwd/],
    [`concat:${join(dir, 'seg.ts')}|${join(dir, 'seg.ts')}`, /concat/],
    [`${base}/seg.ts`, /Protocol 'http' not on whitelist 'file'/],
  ];
  for (const [segment, message] of cases) {
    const path = join(dir, 'list.m3u8');
    await writeFile(path, playlist(segment));
    const r = await runFfmpeg({ kind: 'file', path });
    assert.equal(r.outcome, 'exited', segment);
    assert.match(r.stderr, message, segment);
  }
});
