import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RATE_CONTROLLERS, RATE_CONTROLLER_NAMES, createRateController, rateControllerNameSchema } from './registry';
import type { ControllerFeedback, ControllerFeedbackKind } from './rateController';

const SETUP = { initialKbps: 300, minKbps: 50, maxKbps: 2000 };

/** One valid event of each kind, all at 1 s. */
const EVENTS: Record<ControllerFeedbackKind, ControllerFeedback> = {
  rtcp: { kind: 'rtcp', epoch: 1, lossFraction: 0, atMs: 1000 },
  router: { kind: 'router', epoch: 1, lossFraction: -0.5, atMs: 1000 },
  nack: { kind: 'nack', lostSeqs: [3], sendTimesMs: [900], atMs: 1000 },
  ack: { kind: 'ack', seq: 0, sendTimeMs: 950, atMs: 1000, lastRecv: 0, lastMiss: -1, prevRecv: -1 },
  'receiver-report': { kind: 'receiver-report', xRecvKbps: 300, lossEventRate: 0, echoTsMs: 950, tDelayMs: 0, atMs: 1000 },
  dispersion: { kind: 'dispersion', ratio: 0, pairs: 10, atMs: 1000 },
  rtt: { kind: 'rtt', rttMs: 50, atMs: 1000 },
};

test('every name builds its controller, within the bounds, using the kinds it lists and ignoring the others', () => {
  assert.deepEqual(Object.keys(RATE_CONTROLLERS).sort(), [...RATE_CONTROLLER_NAMES].sort());
  for (const name of RATE_CONTROLLER_NAMES) {
    const entry = RATE_CONTROLLERS[name];
    const c = createRateController(name, SETUP);
    assert.equal(c.name, name);
    assert.equal(c.rateKbps, 300, name);
    for (const [kind, ev] of Object.entries(EVENTS)) {
      const before = { ...c.feedbackCounts };
      c.onFeedback(ev);
      const uses = entry.feedback.includes(kind as ControllerFeedbackKind);
      assert.deepEqual(c.feedbackCounts, uses ? { ...before, used: before.used + 1 } : { ...before, ignored: before.ignored + 1 }, `${name} ${kind}`);
    }
    c.onTimer?.(60_000);
    assert.ok(c.rateKbps >= 50 && c.rateKbps <= 2000, `${name}: ${c.rateKbps}`);
    c.setBounds(400, 500);
    assert.ok(c.rateKbps >= 400 && c.rateKbps <= 500, `${name} after setBounds: ${c.rateKbps}`);
  }
});

test('an unknown name or bad bounds are refused with a message that says what is allowed', () => {
  assert.throws(() => createRateController('bbr', SETUP), /unknown rate controller "bbr"; one of mkc, aimd, iiad, sqrt, tfrc, rap, fuzzy, iscc/);
  assert.equal(rateControllerNameSchema.safeParse('tfrc').success, true);
  assert.equal(rateControllerNameSchema.safeParse('TFRC').success, false);
  for (const name of RATE_CONTROLLER_NAMES) {
    assert.throws(() => createRateController(name, { initialKbps: 100, minKbps: 0, maxKbps: 10 }), /minKbps must be a finite number > 0/, name);
    assert.throws(() => createRateController(name, SETUP).setBounds(10, 5), /maxKbps must be a finite number >= minKbps/, name);
  }
});
