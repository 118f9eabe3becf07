import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TEMPORAL_PATTERN, type FrameInfo } from '../pels/frame';
import { GAMMA_DEFAULTS, gammaStep } from '../pels/gammaController';
import { MKC_PAPER_GAINS, mkcStep } from '../pels/mkc';
import { mulberry32 } from '../pels/syntheticStream';
import { RENDITION_POLICY_DEFAULTS } from '../pels/renditionPolicy';
import { ControlCore, type ControlCoreParams } from './controlCore';
import type { StreamStats } from './receiverReports';
import { CLIP_MODEL, LOSS_EPISODE, simulatedParams, simulateViewer, type Trace } from './simulatedViewerForTests';
import { streamContext } from './streamContext';

const MKC = { ...MKC_PAPER_GAINS, initialKbps: 300, minKbps: 250, maxKbps: 1500 };
// The first seconds' tolerance of loss is off: these tests step on exact losses from the first report (congestionEstimator.test.ts has it).
const params = (over: Partial<ControlCoreParams> = {}): ControlCoreParams => ({ origin: 'v1', control: { mkc: MKC }, feedback: 'rtcp', mode: 'pels', congestion: { unknownWireMs: 0 }, startMs: 0, seed: 1, ...over });
const stats = (packetCount: number, packetsLost: number, jitter: number): StreamStats => ({ packetCount, packetsLost, fractionLost: 0, jitter, roundTripTime: 20 });
const frames: FrameInfo[] = Array.from({ length: 16 }, (_, i) => ({ temporalId: TEMPORAL_PATTERN[i % 4]!, keyframe: i === 0, bytes: 1000 }));

test('receiver reports step rate and gamma through the tracker, with the pooled enhancement loss', () => {
  const core = new ControlCore(params());
  const out = core.step({ kind: 'receiver-reports', atMs: 1000, streams: { green: stats(100, 0, 1), yellow: stats(100, 10, 1), red: stats(100, 30, 1) } });
  assert.equal(out.decision, null);
  assert.equal(out.state.rateKbps, mkcStep(300, 0.2, MKC_PAPER_GAINS));
  assert.equal(out.state.gamma, gammaStep(GAMMA_DEFAULTS.initial, 0.2, GAMMA_DEFAULTS));
  assert.deepEqual([out.state.lossP, out.state.feedbackSteps, out.state.rttMs, out.state.controller], [0.2, 1, 20, 'mkc']);
  assert.deepEqual(out.state.perColor.red, { packetsSent: 100, packetsLost: 30, lossFraction: 0.3, recentLoss: 0 });
});

test('a tick lets the tracker give up on a silent stream: its packets count as lost', () => {
  const core = new ControlCore(params());
  core.step({ kind: 'receiver-reports', atMs: 0, streams: { yellow: stats(100, 0, 1), red: stats(100, 0, 1) } });
  // Yellow reports, red sent 100 more packets and stays silent.
  core.step({ kind: 'receiver-reports', atMs: 1000, streams: { yellow: stats(200, 0, 2), red: stats(200, 0, 1) } });
  assert.equal(core.state.feedbackSteps, 1);
  assert.equal(core.step({ kind: 'tick', atMs: 3600 }).state.lossP, 100 / 200);
});

test('only the configured kind of feedback steps the controllers; the other is still measured', () => {
  const router = new ControlCore(params({ feedback: 'router' }));
  router.step({ kind: 'receiver-reports', atMs: 1000, streams: { yellow: stats(100, 50, 1), red: stats(100, 50, 1) } });
  assert.deepEqual([router.state.rateKbps, router.state.feedbackSteps, router.state.perColor.yellow.packetsLost], [300, 0, 50]);
  router.step({ kind: 'router-feedback', atMs: 1100, epoch: 1, lossFraction: -1, origin: 'r1', sentAtMs: 1070 });
  assert.equal(router.state.rateKbps, mkcStep(300, -1, MKC_PAPER_GAINS));
  const rtcp = new ControlCore(params());
  rtcp.step({ kind: 'router-feedback', atMs: 1100, epoch: 1, lossFraction: -1, origin: 'r1' });
  assert.deepEqual([rtcp.state.rateKbps, rtcp.state.feedbackSteps], [300, 0]);
});

test('rate bounds clamp the rate; bounds no controller can run from (a floor of 0) are passed over', () => {
  const core = new ControlCore(params());
  assert.equal(core.step({ kind: 'rate-bounds', atMs: 10, minKbps: 400, maxKbps: 1500 }).state.rateKbps, 400);
  assert.equal(core.step({ kind: 'rate-bounds', atMs: 20, minKbps: 0, maxKbps: 100 }).state.rateKbps, 400);
});

test('a mode change switches the coloring from the next frame on; rate and gamma go on', () => {
  // A rate far above the frames', so every frame is sent and only the coloring differs.
  const core = new ControlCore(params({ control: { mkc: { ...MKC, initialKbps: 100_000, minKbps: 100, maxKbps: 100_000 }, gamma: { ...GAMMA_DEFAULTS, initial: 1 } } }));
  const pels = frames.slice(0, 8).map((frame, i) => core.step({ kind: 'frames', atMs: i * 33, frames: [frame] }).decision!.frame!);
  assert.ok(pels.every((d) => d.send));
  // gamma 1: PELS makes all enhancement red.
  assert.deepEqual([...new Set(pels.filter((_, i) => i % 4 !== 0).map((d) => d.color))], ['red']);
  const before = core.state;
  const after = core.step({ kind: 'mode', atMs: 300, mode: 'best-effort' }).state;
  assert.deepEqual([after.mode, after.rateKbps, after.gamma], ['best-effort', before.rateKbps, before.gamma]);
  const be = frames.slice(8).map((frame, i) => core.step({ kind: 'frames', atMs: (8 + i) * 33, frames: [frame] }).decision!.frame!);
  assert.ok(be.every((d) => d.send));
  assert.deepEqual(be.slice(0, 4).map((d) => d.color), ['green', 'red', 'yellow', 'red']);
  // nack selects and colors frames as best effort does.
  const nack = new ControlCore(params({ mode: 'nack', control: { mkc: { ...MKC, initialKbps: 100_000, minKbps: 100, maxKbps: 100_000 } } }));
  assert.deepEqual(frames.slice(0, 4).map((frame, i) => nack.step({ kind: 'frames', atMs: i * 33, frames: [frame] }).decision!.frame!.color), ['green', 'red', 'yellow', 'red']);
});

test('another rate controller under the same core: named in the state, gamma steps with it, its timer runs on any input', () => {
  const core = new ControlCore(params({ control: { controller: 'aimd', mkc: MKC } }));
  assert.equal(core.state.controller, 'aimd');
  core.step({ kind: 'receiver-reports', atMs: 0, streams: { green: stats(100, 0, 1), yellow: stats(100, 0, 1), red: stats(100, 0, 1) } });
  const start = core.state.rateKbps;
  // AIMD adds a packet per round trip (20 ms from the reports): frames alone carry the time forward.
  for (let i = 1; i <= 30; i++) core.step({ kind: 'frames', atMs: i * 33, frames: [frames[i % 16]!] });
  assert.ok(core.state.rateKbps > start, `${core.state.rateKbps} > ${start}`);
  core.step({ kind: 'receiver-reports', atMs: 1000, streams: { green: stats(200, 0, 2), yellow: stats(200, 50, 2), red: stats(200, 50, 2) } });
  assert.equal(core.state.lossP, 0.5);
  assert.equal(core.state.gamma, gammaStep(gammaStep(GAMMA_DEFAULTS.initial, 0, GAMMA_DEFAULTS), 0.5, GAMMA_DEFAULTS));
});

test('a controller switch keeps the rate and gamma and names the new controller, and back', () => {
  const core = new ControlCore(params());
  core.step({ kind: 'receiver-reports', atMs: 1000, streams: { yellow: stats(100, 10, 1), red: stats(100, 30, 1) } });
  const before = core.state;
  const after = core.step({ kind: 'controller', atMs: 1100, controller: 'tfrc' }).state;
  assert.deepEqual([after.controller, after.rateKbps, after.gamma], ['tfrc', before.rateKbps, before.gamma]);
  // TFRC acts on its own receiver reports, not on the pooled RTCP loss: the rate holds while gamma still steps.
  core.step({ kind: 'receiver-reports', atMs: 2000, streams: { yellow: stats(200, 10, 2), red: stats(200, 30, 2) } });
  assert.deepEqual([core.state.rateKbps, core.state.feedbackSteps], [before.rateKbps, 2]);
  assert.equal(core.step({ kind: 'controller', atMs: 2100, controller: 'mkc' }).state.controller, 'mkc');
  core.step({ kind: 'receiver-reports', atMs: 3000, streams: { yellow: stats(300, 10, 3), red: stats(300, 30, 3) } });
  assert.equal(core.state.rateKbps, mkcStep(before.rateKbps, 0, MKC_PAPER_GAINS));
});

test('a probe raises the rate to what it names (never lowers it, never past the ceiling); feedback steps on from there', () => {
  const core = new ControlCore(params());
  assert.equal(core.step({ kind: 'probe', atMs: 1000, kbps: 600 }).state.rateKbps, 600);
  assert.equal(core.step({ kind: 'probe', atMs: 1100, kbps: 400 }).state.rateKbps, 600);
  assert.equal(core.step({ kind: 'probe', atMs: 1200, kbps: 9000 }).state.rateKbps, 1500);
  const out = core.step({ kind: 'receiver-reports', atMs: 2000, streams: { green: stats(100, 0, 1), yellow: stats(100, 50, 1), red: stats(100, 50, 1) } });
  assert.equal(out.state.rateKbps, mkcStep(1500, 0.5, MKC_PAPER_GAINS));
});

test('10% random loss on every color: MKC climbs to the full stream, where stepping on the raw loss would hold it near alpha / (beta p)', () => {
  const core = new ControlCore(params({ control: { mkc: { ...MKC, initialKbps: 250, maxKbps: 1000 } } }));
  const rand = mulberry32(3);
  const sent = { green: 0, yellow: 0, red: 0 };
  const lost = { green: 0, yellow: 0, red: 0 };
  for (let k = 1; k <= 90; k++) {
    for (const [c, n] of [['green', 25], ['yellow', 40], ['red', 30]] as const) {
      sent[c] += n;
      for (let i = 0; i < n; i++) if (rand() < 0.1) lost[c]++;
    }
    const streams = { green: stats(sent.green, lost.green, k), yellow: stats(sent.yellow, lost.yellow, k), red: stats(sent.red, lost.red, k) };
    core.step({ kind: 'receiver-reports', atMs: k * 1000, streams });
  }
  const { rateKbps, congestion } = core.state;
  assert.equal(congestion.diagnosis, 'wire-loss');
  // eq. 8's stationary point on the raw 10%: 20 / (0.5 * 0.1) = 400 kb/s.
  assert.ok(rateKbps > 900, `rate ${rateKbps}`);
});

/** The rendition of each frame set, with runs collapsed: [0, 1, 0] is down and back up. */
function renditionPath(trace: Trace): number[] {
  const path: number[] = [];
  for (const { output } of trace) if (output.decision && path.at(-1) !== output.decision.rendition) path.push(output.decision.rendition);
  return path;
}

test('a loss episode: the viewer moves down at its keyframe and back up, UPTA cuts the streams and gives them back', () => {
  const core = new ControlCore(simulatedParams(1), streamContext({ policy: RENDITION_POLICY_DEFAULTS, model: () => CLIP_MODEL }));
  const trace = simulateViewer(core, LOSS_EPISODE);
  assert.deepEqual(renditionPath(trace), [0, 1, 0]);
  const requests = trace.flatMap(({ output }) => (output.keyframeRequest === null ? [] : [output.keyframeRequest]));
  assert.deepEqual(requests.slice(0, 2), [1, 0]);
  const colors = trace.flatMap(({ input, output }) => (output.colors ? [{ atMs: input.atMs, colors: output.colors.join() }] : []));
  assert.ok(colors.some((c) => c.colors === 'green' || c.colors === ''), `UPTA cut during the loss: ${JSON.stringify(colors)}`);
  assert.equal(colors.at(-1)?.colors, 'green,yellow,red');
  assert.ok(colors.at(-1)!.atMs > 40_000);
  assert.equal(core.uptaStatus?.state, 'full');
  const s = core.renditionState(90_000);
  assert.equal(s.switches, 2);
  assert.equal(s.timeMs.reduce((a, b) => a + b), 90_000);
});

test('the rendition choice is deterministic under a seed: the seed is its only randomness', () => {
  // A dwell long enough to bind: the viewer's way back up waits for it.
  const renditions = { count: 2, policy: { ...RENDITION_POLICY_DEFAULTS, minDwellMs: 30_000, maxDwellMs: 60_000 } };
  const runs = [1, 1, 2, 3].map((seed) => simulateViewer(new ControlCore(simulatedParams(seed, { renditions })), LOSS_EPISODE));
  const decisions = (trace: Trace) => JSON.stringify(trace.map(({ output }) => [output.decision, output.keyframeRequest, output.state.rateKbps]));
  assert.equal(decisions(runs[0]!), decisions(runs[1]!));
  // The dwell's jitter moves the switches: seeds differ in when the viewer goes back up.
  const backUp = (trace: Trace) => {
    const down = trace.findIndex(({ output }) => output.decision?.rendition === 1);
    return trace.slice(down).find(({ output }) => output.decision?.rendition === 0)?.input.atMs;
  };
  assert.ok(new Set(runs.slice(1).map(backUp)).size > 1, `${runs.map(backUp).join()}`);
});

test('a pinned rendition holds through the loss; under rlm UPTA lets every stream out and has no state', () => {
  const pinned = new ControlCore(simulatedParams(1));
  pinned.step({ kind: 'pin-rendition', atMs: 0, rendition: 0 });
  assert.deepEqual(renditionPath(simulateViewer(pinned, LOSS_EPISODE)), [0]);
  assert.equal(pinned.renditionState(90_000).pinned, 0);
  const rlm = new ControlCore(simulatedParams(1, { mode: 'rlm' }), streamContext({ model: () => CLIP_MODEL }));
  const trace = simulateViewer(rlm, LOSS_EPISODE);
  assert.ok(trace.every(({ output }) => output.colors === null));
  assert.equal(rlm.uptaStatus, null);
  assert.ok(rlm.allows('red'));
});
