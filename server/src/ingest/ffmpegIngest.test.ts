import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { pino } from 'pino';
import { parseVp8FrameHeader } from '@pels/shared/vp8/frameHeader';
import { MediaArrivals } from '../live/mediaArrivals';
import type { Publisher } from '../live/publisher';
import { FfmpegIngest, type IngestStatus } from './ffmpegIngest';
import { resolveSource } from './mediaFiles';
import { DEFAULT_ENCODE } from './sourceSpec';

const log = pino({ level: 'silent' });
const small = { ...DEFAULT_ENCODE, width: 160, height: 90, bitrateKbps: 200 };
const fast = { initialBackoffMs: 100, maxBackoffMs: 400 };

function waitFor(ingest: FfmpegIngest, pred: (s: IngestStatus) => boolean, ms = 10_000): Promise<IngestStatus> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`timed out; last status ${JSON.stringify(ingest.currentStatus)}`)), ms);
    const on = (s: IngestStatus): void => {
      if (!pred(s)) return;
      clearTimeout(t);
      ingest.off('status', on);
      resolve(s);
    };
    ingest.on('status', on);
  });
}

test('real FFmpeg frames arrive live, starting with a keyframe, in the 0,2,1,2 layer pattern', async () => {
  const ingest = new FfmpegIngest(await resolveSource('lavfi:testsrc2=size=160x90:rate=30', []), small, log, fast);
  const tids: number[] = [];
  let first: boolean | undefined;
  ingest.on('frame', (f) => {
    const h = parseVp8FrameHeader(f.data);
    first ??= h.keyframe;
    tids.push(h.temporalId);
  });
  ingest.start();
  await waitFor(ingest, (s) => s.state === 'running');
  while (tids.length < 12) await once(ingest, 'frame');
  ingest.close();
  assert.equal(first, true);
  assert.deepEqual(tids.slice(0, 12), [0, 2, 1, 2, 0, 2, 1, 2, 0, 2, 1, 2]);
  assert.equal(ingest.currentStatus.state, 'stopped');
});

test('a file gone since it was added is reported as failed with a clear error, and retried', async () => {
  const ingest = new FfmpegIngest({ kind: 'file', path: '/nonexistent/clip.mp4', mediaDirs: ['/nonexistent'] }, small, log, fast);
  ingest.start();
  const s = await waitFor(ingest, (x) => x.state === 'failed');
  assert.match(s.error ?? '', /not found or not readable: \/nonexistent\/clip\.mp4/);
  const again = await waitFor(ingest, (x) => x.state === 'failed' && x.restarts >= 1);
  assert.ok(again.restarts >= 1);
  ingest.close();
});

test('a file FFmpeg cannot decode gives FFmpeg own error', async () => {
  const self = new URL(import.meta.url).pathname;
  const ingest = new FfmpegIngest(await resolveSource(self, [dirname(self)]), small, log, fast);
  ingest.start();
  const s = await waitFor(ingest, (x) => x.state === 'failed');
  assert.match(s.error ?? '', /ffmpeg exited/);
  ingest.close();
});

test('when FFmpeg ends the ingest restarts and frames keep coming', async () => {
  const ingest = new FfmpegIngest(await resolveSource('lavfi:testsrc2=size=160x90:rate=30:duration=0.5', []), small, log, fast);
  let frames = 0;
  ingest.on('frame', () => frames++);
  ingest.start();
  const s = await waitFor(ingest, (x) => x.state === 'running' && x.restarts >= 2, 15_000);
  ingest.close();
  assert.ok(s.restarts >= 2);
  assert.ok(frames >= 30, `${frames} frames`);
});

test('a file replaced by a link to outside the media directories since it was added is refused, FFmpeg never sees it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'pels-media-'));
  try {
    const clip = join(dir, 'clip.mp4');
    await writeFile(clip, 'not video');
    const ingest = new FfmpegIngest(await resolveSource(clip, [dir]), small, log, fast);
    await rm(clip);
    await symlink('/etc/passwd', clip);
    ingest.start();
    const s = await waitFor(ingest, (x) => x.state === 'failed');
    ingest.close();
    assert.match(s.error ?? '', /links to outside the media directories/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** The pid of this process's FFmpeg whose command line holds `unique` (each test's lavfi graph is its own; another run of these tests may be on the machine). */
function ffmpegPid(unique: string): number {
  const pids = execFileSync('pgrep', ['-P', String(process.pid), '-f', unique], { encoding: 'utf8' }).trim().split('\n').map(Number);
  assert.equal(pids.length, 1, `one ffmpeg with ${unique}`);
  return pids[0]!;
}

function recordStates(ingest: FfmpegIngest): string[] {
  const states: string[] = [];
  ingest.on('status', (s) => {
    if (states.at(-1) !== s.state) states.push(s.state);
  });
  return states;
}

test('a running source that sends nothing is stalled after the notice time, and running again with its next frame, not restarted', async (t) => {
  const graph = 'testsrc2=size=164x92:rate=30';
  const ingest = new FfmpegIngest(await resolveSource(`lavfi:${graph}`, []), small, log, { ...fast, stallNoticeMs: 1000, stallTimeoutMs: 60_000 });
  const states = recordStates(ingest);
  t.after(() => ingest.close());
  ingest.start();
  await waitFor(ingest, (s) => s.state === 'running');
  const pid = ffmpegPid(graph);
  process.kill(pid, 'SIGSTOP');
  try {
    await waitFor(ingest, (s) => s.state === 'stalled', 5000);
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  const again = await waitFor(ingest, (s) => s.state === 'running', 5000);
  ingest.close();
  assert.equal(again.restarts, 0);
  assert.deepEqual(states, ['starting', 'running', 'stalled', 'running', 'stopped']);
});

test('a stall that lasts: stalled, then FFmpeg is replaced (restarting) and the source runs again', async (t) => {
  const graph = 'testsrc2=size=166x94:rate=30';
  const ingest = new FfmpegIngest(await resolveSource(`lavfi:${graph}`, []), small, log, { ...fast, stallNoticeMs: 1000, stallTimeoutMs: 3000 });
  const states = recordStates(ingest);
  t.after(() => ingest.close());
  ingest.start();
  await waitFor(ingest, (s) => s.state === 'running');
  const pid = ffmpegPid(graph);
  process.kill(pid, 'SIGSTOP'); // the restart kills it (SIGKILL ends a stopped process too)
  const s = await waitFor(ingest, (x) => x.state === 'running' && x.restarts >= 1, 15_000);
  ingest.close();
  assert.equal(s.restarts, 1);
  assert.deepEqual(states, ['starting', 'running', 'stalled', 'restarting', 'running', 'stopped']);
});

/** The pid of this process's encoder whose encode width is `width` (each test that looks for one has its own). */
function encoderPid(width: number): number {
  const pids = execFileSync('pgrep', ['-P', String(process.pid), '-f', `pels-vp8enc --width ${width} `], { encoding: 'utf8' }).trim().split('\n').map(Number);
  assert.equal(pids.length, 1, `one encoder of width ${width}`);
  return pids[0]!;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('a keyframe requested while running comes within a few frames, long before the periodic one, and the layer pattern starts again from it', async (t) => {
  const ingest = new FfmpegIngest(await resolveSource('lavfi:testsrc2=size=160x90:rate=30', []), small, log, fast);
  t.after(() => ingest.close());
  const frames: { keyframe: boolean; tid: number }[] = [];
  ingest.on('frame', (f) => {
    const h = parseVp8FrameHeader(f.data);
    frames.push({ keyframe: h.keyframe, tid: h.temporalId });
  });
  ingest.start();
  while (frames.length < 10) await once(ingest, 'frame');
  const requestedAt = frames.length;
  ingest.requestKeyframe();
  while (frames.length < requestedAt + 12) await once(ingest, 'frame');
  ingest.close();
  const keyframes = frames.flatMap((f, i) => (f.keyframe ? [i] : []));
  assert.equal(keyframes.length, 2, `keyframes at ${keyframes}`);
  const k = keyframes[1]!;
  // The encoder takes the request before its next frame; a frame or two may already be on their way.
  assert.ok(k >= requestedAt && k <= requestedAt + 3, `requested after frame ${requestedAt}, keyframe at ${k}`);
  assert.ok(k < small.keyframeInterval);
  assert.deepEqual(frames.slice(k, k + 8).map((f) => f.tid), [0, 2, 1, 2, 0, 2, 1, 2]);
});

test('when the encoder dies, FFmpeg is ended with it and both start again, at the bitrate last set; closing leaves no process or descriptor behind', async (t) => {
  const enc = { ...small, width: 184, height: 104 };
  const graph = 'testsrc2=size=184x104:rate=30';
  const fdsBefore = readdirSync('/proc/self/fd').length;
  const ingest = new FfmpegIngest(await resolveSource(`lavfi:${graph}`, []), enc, log, fast);
  t.after(() => ingest.close());
  const statuses: IngestStatus[] = [];
  ingest.on('status', (s) => statuses.push(s));
  ingest.start();
  await waitFor(ingest, (s) => s.state === 'running');
  const [ffmpeg, encoder] = [ffmpegPid(graph), encoderPid(184)];
  ingest.setBitrate(77);
  process.kill(encoder, 'SIGKILL');
  await waitFor(ingest, (s) => s.state === 'running' && s.restarts === 1);
  assert.match(statuses.find((s) => s.state === 'restarting')?.error ?? '', /^vp8 encoder exited \(killed by SIGKILL\)$/);
  assert.equal(alive(ffmpeg), false, 'the first FFmpeg is gone');
  const next = encoderPid(184);
  assert.match(readFileSync(`/proc/${next}/cmdline`, 'utf8').split('\0').join(' '), /--kbps 77 /);
  ingest.close();
  const deadline = Date.now() + 5000;
  // This process's FFmpeg and encoder children (tsx's esbuild service is a child too).
  const children = () => spawnSync('pgrep', ['-P', String(process.pid), '-x', 'ffmpeg|pels-vp8enc'], { encoding: 'utf8' }).stdout.trim();
  while ((children() || readdirSync('/proc/self/fd').length > fdsBefore) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.equal(children(), '', 'no child process left');
  assert.ok(readdirSync('/proc/self/fd').length <= fdsBefore, `${readdirSync('/proc/self/fd').length} descriptors open, ${fdsBefore} before`);
});

test("a lavfi graph's sound has an FFmpeg of its own: a stopped encoder does not stop the sound; that FFmpeg killed ends the run, which starts again with its sound; closing leaves no process", async (t) => {
  const enc = { ...small, width: 190, height: 106 };
  const tone = 'sine=frequency=997';
  const ingest = new FfmpegIngest(await resolveSource(`lavfi:testsrc2=size=190x106:rate=30|${tone}`, []), enc, log, { ...fast, stallTimeoutMs: 60_000 });
  t.after(() => ingest.close());
  const statuses: IngestStatus[] = [];
  ingest.on('status', (s) => statuses.push(s));
  let packets = 0;
  ingest.on('audio', () => packets++);
  ingest.start();
  await waitFor(ingest, (s) => s.state === 'running');
  while (packets < 10) await once(ingest, 'audio');
  // An encoder that gets no CPU: FFmpeg's writes to it block, and with them any output of the same FFmpeg.
  const encoder = encoderPid(190);
  process.kill(encoder, 'SIGSTOP');
  const before = packets;
  await new Promise((r) => setTimeout(r, 2000));
  const during = packets - before;
  process.kill(encoder, 'SIGCONT');
  // 2 s of 20 ms packets is 100.
  assert.ok(during >= 60, `${during} sound packets in the 2 s the encoder was stopped`);
  const [video, sound] = [ffmpegPid('testsrc2=size=190x106'), ffmpegPid(tone)];
  process.kill(sound, 'SIGKILL');
  await waitFor(ingest, (s) => s.state === 'running' && s.restarts === 1);
  assert.match(statuses.find((s) => s.state === 'restarting')?.error ?? '', /^ffmpeg \(sound\) exited \(killed by SIGKILL\)$/);
  assert.equal(alive(video), false, "the run's video FFmpeg is gone");
  const again = packets;
  while (packets < again + 10) await once(ingest, 'audio');
  ingest.close();
  const deadline = Date.now() + 5000;
  const children = () => spawnSync('pgrep', ['-P', String(process.pid), '-x', 'ffmpeg|pels-vp8enc'], { encoding: 'utf8' }).stdout.trim();
  while (children() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.equal(children(), '', 'no child process left');
});

test('an encoder that stops sending: stalled, then FFmpeg and the encoder are both replaced', async (t) => {
  const enc = { ...small, width: 186, height: 104 };
  const graph = 'testsrc2=size=186x104:rate=30';
  const ingest = new FfmpegIngest(await resolveSource(`lavfi:${graph}`, []), enc, log, { ...fast, stallNoticeMs: 1000, stallTimeoutMs: 3000 });
  const states = recordStates(ingest);
  t.after(() => ingest.close());
  ingest.start();
  await waitFor(ingest, (s) => s.state === 'running');
  const [ffmpeg, encoder] = [ffmpegPid(graph), encoderPid(186)];
  process.kill(encoder, 'SIGSTOP');
  await waitFor(ingest, (s) => s.state === 'running' && s.restarts === 1, 15_000);
  ingest.close();
  assert.deepEqual(states, ['starting', 'running', 'stalled', 'restarting', 'running', 'stopped']);
  assert.equal(alive(ffmpeg), false);
  assert.equal(alive(encoder), false);
});

test('an encoder that is not there: failed with the reason, and FFmpeg is not started', async () => {
  const graph = 'testsrc2=size=188x104:rate=30';
  const ingest = new FfmpegIngest(await resolveSource(`lavfi:${graph}`, []), small, log, { ...fast, encoderPath: '/nonexistent/pels-vp8enc' });
  ingest.start();
  const s = await waitFor(ingest, (x) => x.state === 'failed');
  ingest.close();
  assert.equal(s.error, 'vp8 encoder did not start: cannot run /nonexistent/pels-vp8enc: spawn /nonexistent/pels-vp8enc ENOENT (scripts/setup.sh builds it)');
  assert.equal(spawnSync('pgrep', ['-P', String(process.pid), '-f', graph]).status, 1, 'no FFmpeg');
});

test('lower renditions come from the same decode: one encoder each, the same frames (pts) at their own size, keyframes asked for per rendition', async () => {
  const renditions = [{ width: 80, height: 46, bitrateKbps: 60 }];
  const ingest = new FfmpegIngest(await resolveSource('lavfi:testsrc2=size=160x90:rate=30', []), small, log, { ...fast, renditions });
  const pts: [number[], number[]] = [[], []];
  const keyframes: [number[], number[]] = [[], []];
  const sizes = new Set<string>();
  ingest.on('frame', (f, rendition) => {
    const r = rendition as 0 | 1;
    const h = parseVp8FrameHeader(f.data);
    pts[r].push(Number(f.pts));
    if (h.keyframe) {
      keyframes[r].push(Number(f.pts));
      sizes.add(`${r}:${h.width}x${h.height}`);
    }
    if (r === 1 && Number(f.pts) === 10) ingest.requestKeyframe(1);
  });
  ingest.start();
  await waitFor(ingest, (s) => s.state === 'running');
  while (pts[1].length < 30 || pts[0].length < 30) await once(ingest, 'frame');
  ingest.close();
  assert.deepEqual(pts[0].slice(0, 30), pts[1].slice(0, 30));
  assert.deepEqual([...sizes].sort(), ['0:160x90', '1:80x46']);
  // The request went to rendition 1's encoder only: its next frame or the one after is a keyframe.
  assert.ok(keyframes[1].some((p) => p > 10 && p <= 12), `rendition 1 keyframes at ${keyframes[1].join()}`);
  assert.deepEqual(keyframes[0].filter((p) => p < 30), [0]);
});

test("when a lower rendition's encoder dies, FFmpeg and the other encoder end with it and all start again", async (t) => {
  const enc = { ...small, width: 188, height: 104 };
  const graph = 'testsrc2=size=188x104:rate=30';
  const ingest = new FfmpegIngest(await resolveSource(`lavfi:${graph}`, []), enc, log, { ...fast, renditions: [{ width: 94, height: 52, bitrateKbps: 50 }] });
  t.after(() => ingest.close());
  const statuses: IngestStatus[] = [];
  ingest.on('status', (s) => statuses.push(s));
  ingest.start();
  await waitFor(ingest, (s) => s.state === 'running');
  const [ffmpeg, top, low] = [ffmpegPid(graph), encoderPid(188), encoderPid(94)];
  process.kill(low, 'SIGKILL');
  await waitFor(ingest, (s) => s.state === 'running' && s.restarts === 1);
  assert.match(statuses.find((s) => s.state === 'restarting')?.error ?? '', /^vp8 encoder of rendition 1 exited \(killed by SIGKILL\)$/);
  assert.equal(alive(ffmpeg), false, 'the first FFmpeg is gone');
  assert.equal(alive(top), false, "the top rendition's first encoder is gone");
  // Both renditions' frames come again.
  const seen = new Set<number>();
  ingest.on('frame', (_f, r) => seen.add(r));
  while (seen.size < 2) await once(ingest, 'frame');
});

/** This process's children named `comm` (pids). */
function childrenNamed(comm: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
        return stat.includes(`(${comm})`) && Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

test("a URL's credentials reach its server but not FFmpeg's command line (ps), and FFmpeg's environment holds no secret", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'pels-ingest-url-'));
  const clip = join(dir, 'clip.ts');
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=160x90:rate=30:duration=5', '-c:v', 'mpeg2video', clip]);
  const body = readFileSync(clip);
  const authorizations: string[] = [];
  // Basic auth as a camera or a CDN asks for it: a challenge first, FFmpeg then sends the URL's user info.
  const server = createServer((req, res) => {
    authorizations.push(req.headers.authorization ?? '');
    if (req.headers.authorization !== `Basic ${Buffer.from('viewer:s3cret-pass').toString('base64')}`) return void res.writeHead(401, { 'www-authenticate': 'Basic realm="cam"' }).end();
    res.writeHead(200, { 'content-type': 'video/mp2t' }).end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  process.env.TURN_SECRET_FOR_INGEST_TEST = 'must not reach FFmpeg';
  const { port } = server.address() as { port: number };
  const ingest = new FfmpegIngest(await resolveSource(`http://viewer:s3cret-pass@127.0.0.1:${port}/clip.ts?token=abc123`, []), small, log, fast);
  t.after(async () => {
    ingest.close();
    delete process.env.TURN_SECRET_FOR_INGEST_TEST;
    server.close();
    await rm(dir, { recursive: true, force: true });
  });
  ingest.start();
  await waitFor(ingest, (s) => s.state === 'running');
  assert.ok(authorizations.some((a) => a.startsWith('Basic ')), 'FFmpeg answered the challenge with the credentials');
  const [pid] = childrenNamed('ffmpeg');
  assert.ok(pid !== undefined, 'FFmpeg runs');
  const ps = execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' });
  assert.ok(ps.includes('pipe:0'), ps);
  for (const secret of ['s3cret-pass', 'abc123', '127.0.0.1']) assert.ok(!ps.includes(secret), `${secret} in: ${ps}`);
  const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
  assert.ok(!environ.includes('TURN_SECRET_FOR_INGEST_TEST'));
});

/** A publisher as WHIP's is one, its media H.264 in live Matroska from FFmpeg (a keyframe every `gop` frames); `resumable`: it can start its media again. */
function matroskaPublisher(resumable: boolean, gop = 15) {
  const procs: ChildProcess[] = [];
  const start = () => {
    const p = spawn('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-re', '-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=30', '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-g', String(gop), '-f', 'matroska', 'pipe:1'], { stdio: ['ignore', 'pipe', 'ignore'] });
    procs.push(p);
    return p.stdout;
  };
  const closed: string[] = [];
  const publisher: Publisher = {
    protocol: 'whip',
    address: '127.0.0.1',
    input: { kind: 'published', format: 'matroska' },
    audio: null,
    media: start(),
    arrivals: new MediaArrivals(),
    since: Date.now(),
    close: (reason) => {
      closed.push(reason);
      for (const p of procs) p.kill('SIGKILL');
    },
    ...(resumable
      ? {
          resumeMedia: () => {
            procs.at(-1)!.kill('SIGKILL');
            publisher.media = start();
            publisher.arrivals = new MediaArrivals();
          },
        }
      : {}),
  };
  return { publisher, closed, resumes: () => procs.length - 1 };
}

test("a live run that fails mid-stream restarts on the same connection when the publisher can resume its media; without, the publisher is ended", async (t) => {
  for (const resumable of [true, false]) {
    const width = resumable ? 168 : 176;
    const ingest = new FfmpegIngest({ kind: 'live' }, { ...small, width, height: 96 }, log, { ...fast, reconnectMs: 60_000 });
    const { publisher, closed, resumes } = matroskaPublisher(resumable);
    t.after(() => {
      ingest.close();
      publisher.close('test over');
    });
    const runs: number[] = [];
    ingest.on('run', () => runs.push(0));
    ingest.on('frame', (_f, rendition) => rendition === 0 && runs.length && runs[runs.length - 1]!++);
    ingest.start();
    ingest.attachPublisher(publisher);
    await waitFor(ingest, (s) => s.state === 'running');
    process.kill(encoderPid(width), 'SIGKILL');
    if (resumable) {
      const restarted = await waitFor(ingest, (s) => s.state === 'running' && s.restarts === 1);
      assert.equal(restarted.error, undefined);
      const deadline = Date.now() + 10_000;
      while (runs[1]! < 15 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.ok(runs[1]! >= 15, `${runs[1]} frames of the second run`);
      assert.deepEqual(closed, [], 'the publisher stays');
      assert.equal(ingest.currentPublisher, publisher);
      assert.equal(resumes(), 1);
    } else {
      const ended = await waitFor(ingest, (s) => s.state === 'reconnecting');
      assert.match(ended.error ?? '', /^vp8 encoder exited \(killed by SIGKILL\)$/);
      assert.deepEqual(closed, ['its media could not be read']);
      assert.equal(ingest.currentPublisher, null);
      assert.equal(runs.length, 1);
    }
    ingest.close();
  }
});

test("a publisher's first keyframe is decoded: a stream whose only keyframe is its first gives frames from it", async (t) => {
  const ingest = new FfmpegIngest({ kind: 'live' }, { ...small, width: 160, height: 96 }, log, fast);
  const { publisher } = matroskaPublisher(false, 100_000);
  t.after(() => {
    ingest.close();
    publisher.close('test over');
  });
  ingest.start();
  ingest.attachPublisher(publisher);
  // With its first keyframe discarded (FFmpeg's nobuffer), no frame ever came: waiting, then timed out.
  await waitFor(ingest, (s) => s.state === 'running');
});

test("a publisher's resolution and frame rate changing mid-stream: the run goes on, at the stream's size and rate throughout", async (t) => {
  // One second at 320x180 and 30 fps, then one at 240x136 and 15 fps, its timestamps following on: as one MPEG-TS stream.
  const part = (size: string, rate: number, offset: number) =>
    execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', `testsrc2=size=${size}:rate=${rate}:duration=1`, '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '15', '-output_ts_offset', String(offset), '-f', 'mpegts', 'pipe:1'], { maxBuffer: 1 << 24 });
  const media = new PassThrough();
  const width = 152;
  const ingest = new FfmpegIngest({ kind: 'live' }, { ...small, width, height: 96 }, log, { ...fast, reconnectMs: 60_000 });
  const publisher: Publisher = { protocol: 'srt', address: '127.0.0.1', input: { kind: 'published', format: 'mpegts' }, audio: null, media, arrivals: new MediaArrivals(), since: Date.now(), close: () => media.destroy() };
  t.after(() => ingest.close());
  const sizes = new Set<string>();
  let frames = 0;
  ingest.on('frame', (f, rendition) => {
    if (rendition !== 0) return;
    frames++;
    const h = parseVp8FrameHeader(f.data);
    if (h.keyframe) sizes.add(`${h.width}x${h.height}`);
  });
  ingest.start();
  ingest.attachPublisher(publisher);
  // Written at once and left open (a publisher's media ending is the publisher gone: its run ends at once).
  media.write(Buffer.concat([part('320x180', 30, 0), part('240x136', 15, 1)]));
  await waitFor(ingest, (s) => s.state === 'running');
  for (let last = -1; frames !== last; await new Promise((r) => setTimeout(r, 1000))) last = frames;
  assert.equal(ingest.currentStatus.state, 'running');
  assert.equal(ingest.currentStatus.restarts, 0);
  // 30 frames a second from both parts; FFmpeg holds the last frames until its input ends.
  assert.ok(frames >= 50 && frames <= 62, `${frames} frames`);
  assert.deepEqual([...sizes], [`${width}x96`]);
});
