/**
 * For the publish listeners' tests: a live stream's ingest (small, quick to
 * reconnect) that takes one key, and FFmpeg publishing H.264 + AAC test
 * signals to it as OBS does, in real time, over RTMP (FLV) or SRT (MPEG-TS).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { pino } from 'pino';
import { FfmpegIngest } from '../ingest/ffmpegIngest';
import { DEFAULT_ENCODE } from '../ingest/sourceSpec';
import { PublishRefused } from './publishGate';
import type { PublishTarget } from './publisher';

export function liveTestRig(key: string) {
  const log = pino({ level: 'silent' });
  const ingest = new FfmpegIngest({ kind: 'live' }, { ...DEFAULT_ENCODE, width: 160, height: 96, bitrateKbps: 200 }, log, { reconnectMs: 500 });
  const target: PublishTarget = { id: 'live1', attachPublisher: (p) => ingest.attachPublisher(p) };
  const rig = {
    log,
    ingest,
    /** Connections ended as malformed. */
    malformed: 0,
    onMalformed: () => rig.malformed++,
    admit: (_address: string, shown: string): PublishTarget => {
      if (shown !== key) throw new PublishRefused('bad_key', 'unknown stream key');
      return target;
    },
  };
  return rig;
}

/** Publishes for `seconds`; resolves with FFmpeg's exit code and stderr. */
export function publishTestSignal(url: string, format: 'flv' | 'mpegts', seconds: number): Promise<{ code: number | null; stderr: string }> {
  const ff = spawn('ffmpeg', [
    '-hide_banner', '-loglevel', 'error', '-re',
    '-f', 'lavfi', '-i', `testsrc2=size=320x180:rate=30:duration=${seconds}`,
    '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`,
    '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-g', '30', '-c:a', 'aac',
    '-f', format, url,
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  ff.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  return new Promise((resolve) => ff.on('close', (code) => resolve({ code, stderr })));
}

/**
 * A publisher's whole run through the ingest: it publishes (`publish` resolves
 * when FFmpeg ends); encoded frames and its AAC as Opus (a second of it at least)
 * came out, and the stream went running, reconnecting, then waiting.
 */
export async function assertPublishedThrough(ingest: FfmpegIngest, publish: () => Promise<{ code: number | null; stderr: string }>): Promise<void> {
  const states: string[] = [];
  ingest.on('status', (s) => states.push(s.state));
  let frames = 0;
  ingest.on('frame', () => frames++);
  const plans: string[] = [];
  ingest.on('run', (audio) => plans.push(audio));
  let opusSamples = 0;
  ingest.on('audio', (p) => (opusSamples += p.samples));
  const { code, stderr } = await publish();
  assert.equal(code, 0, stderr);
  await new Promise((r) => setTimeout(r, 3000));
  assert.ok(frames >= 30, `${frames} frames encoded`);
  assert.deepEqual(plans, ['encode']);
  assert.ok(opusSamples >= 48_000, `${opusSamples} Opus samples`);
  assert.deepEqual(states.filter((s, i) => s !== states[i - 1]), ['running', 'reconnecting', 'waiting']);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(done: () => boolean, what: string): Promise<void> {
  for (const end = Date.now() + 10_000; !done(); await sleep(50)) if (Date.now() > end) throw new Error(`not ${what} within 10 s`);
}

/**
 * The ingest's FFmpeg killed mid-publish (found among this process's children by
 * `ingestArgs`, e.g. its input format): a new run reads the same connection from the
 * publisher's next keyframe; the publisher stays connected to its end (exit code 0),
 * frames come after the restart, and the stream goes restarting, running, then
 * reconnecting and waiting when the publisher leaves.
 */
export async function assertIngestRestartKeepsPublisher(ingest: FfmpegIngest, ingestArgs: string, publish: () => Promise<{ code: number | null; stderr: string }>): Promise<void> {
  const states: string[] = [];
  const onStatus = (st: { state: string }) => states.push(st.state);
  ingest.on('status', onStatus);
  const run = await publishRunning(ingest, ingestArgs, publish);
  process.kill(run.pid, 'SIGKILL');
  await until(() => states.at(-1) !== 'running', 'the run ended');
  assert.equal(states.at(-1), 'restarting');
  const atKill = run.frames();
  const { code, stderr } = await run.publishing;
  assert.equal(code, 0, `the publisher was cut off: ${stderr}`);
  assert.ok(run.frames() - atKill >= 60, `${run.frames() - atKill} frames after the restart`);
  await sleep(1500);
  ingest.off('status', onStatus);
  run.stopCounting();
  assert.deepEqual(states.filter((st, i) => st !== states[i - 1]), ['running', 'restarting', 'running', 'reconnecting', 'waiting']);
}

/**
 * The ingest's bound on the real ingest: its FFmpeg (found by `ingestArgs`) stopped for 2.5 s mid-publish
 * (SIGSTOP), so the publisher's media piles up unread. Behind past the bound, the server drops it up to a
 * keyframe and closes the gap in the timestamps: fewer frames are encoded than the publisher sent (a
 * second's worth or more, where keeping the backlog would have encoded every one late, and a gap left
 * open would have been filled with copies), the stream goes on, and the publisher stays connected.
 */
export async function assertBehindIngestCatchesUp(ingest: FfmpegIngest, ingestArgs: string, publish: () => Promise<{ code: number | null; stderr: string }>, seconds: number): Promise<void> {
  const run = await publishRunning(ingest, ingestArgs, publish);
  process.kill(run.pid, 'SIGSTOP');
  await sleep(2500);
  process.kill(run.pid, 'SIGCONT');
  const atResume = run.frames();
  const { code, stderr } = await run.publishing;
  await sleep(2000);
  run.stopCounting();
  const frames = run.frames();
  assert.equal(code, 0, `the publisher was cut off: ${stderr}`);
  assert.ok(frames - atResume >= 60, `${frames - atResume} frames after the stop`);
  assert.ok(frames <= (seconds - 1) * 30, `${frames} frames encoded of the ${seconds * 30} published: nothing dropped`);
}

/**
 * Publishes, counting the full size's frames the ingest encodes, and a second into the ingest's run: the
 * pid of this process's ingest FFmpeg (found by `ingestArgs`; the publisher's own FFmpeg writes to a URL).
 */
async function publishRunning(ingest: FfmpegIngest, ingestArgs: string, publish: () => Promise<{ code: number | null; stderr: string }>) {
  let frames = 0;
  const onFrame = (_f: unknown, rendition: number) => rendition === 0 && frames++;
  ingest.on('frame', onFrame);
  const publishing = publish();
  await until(() => ingest.currentStatus.state === 'running', 'running');
  await sleep(1000);
  const pid = Number(execFileSync('pgrep', ['-P', String(process.pid), '-f', ingestArgs], { encoding: 'utf8' }).trim());
  return { publishing, pid, frames: () => frames, stopCounting: () => ingest.off('frame', onFrame) };
}
