import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DscpMarker, DscpStatus } from './dscpMarker';
import { RtxGate } from './rtxGate';
import { SsrcMarks, type SsrcDscp } from './ssrcMarks';

/** A marker that keeps its map in memory (the real one's bookkeeping), failing while told to. */
function memoryMarker() {
  const marks = new SsrcMarks();
  const kernel = new Map<number, SsrcDscp['dscp']>();
  let status: DscpStatus = { enabled: true };
  const state = { failing: false, runs: 0 };
  const commit = () => {
    const c = marks.takeChanges();
    if (c.flush) kernel.clear();
    for (const s of c.remove) kernel.delete(s);
    for (const e of c.add) kernel.set(e.ssrc, e.dscp);
    marks.committed(c);
    state.runs++;
  };
  const marker: DscpMarker = {
    available: true,
    get status() {
      return status;
    },
    get markedSsrcs() {
      return marks.size;
    },
    async mark(rules) {
      await Promise.resolve();
      if (state.failing) {
        status = { enabled: false, reason: 'nftables: failed' };
        return { remove: async () => {} };
      }
      const owner = {};
      marks.add(owner, rules);
      commit();
      status = { enabled: true };
      return {
        remove: async () => {
          marks.remove(owner);
          commit();
        },
      };
    },
    close: async () => {},
  };
  return { marker, kernel, state };
}

const RTX = { green: 11, yellow: 12, red: 13 };

test('closed colors have their RTX SSRC held back (AF43: red drop precedence, not a drop, see HELD_BACK); opening one takes that out, the DSCP marking comes back', async () => {
  const { marker, kernel } = memoryMarker();
  await marker.mark([{ ssrc: 11, dscp: 34 }, { ssrc: 12, dscp: 36 }, { ssrc: 13, dscp: 38 }]);
  const gate = new RtxGate(marker, RTX);
  assert.deepEqual(gate.passing, ['green', 'yellow', 'red'], 'nothing dropped before the first open()');
  await gate.open(['green']);
  assert.deepEqual(gate.passing, ['green']);
  assert.deepEqual([...kernel].sort(), [[11, 34], [12, 38], [13, 38]]);
  await gate.open(['green', 'yellow']);
  assert.deepEqual(gate.passing, ['green', 'yellow']);
  assert.deepEqual([...kernel].sort(), [[11, 34], [12, 36], [13, 38]]);
  await gate.open(['green', 'yellow', 'red']);
  assert.deepEqual([...kernel].sort(), [[11, 34], [12, 36], [13, 38]]);
  // Closing again, then the viewer leaves: its drops go with it.
  await gate.open([]);
  assert.deepEqual(gate.passing, []);
  gate.close();
  await new Promise((r) => setImmediate(r));
  assert.deepEqual([...kernel].sort(), [[11, 34], [12, 36], [13, 38]]);
});

test('changes asked for while one runs are applied after it, the latest wins; asking for what is there runs nothing', async () => {
  const { marker, kernel, state } = memoryMarker();
  const gate = new RtxGate(marker, { yellow: 12, red: 13 });
  await gate.open([]);
  const runs = state.runs;
  await gate.open(['green']); // green has no RTX stream here: nothing changes
  assert.equal(state.runs, runs);
  const all = [gate.open(['yellow']), gate.open(['yellow', 'red']), gate.open(['red'])];
  await Promise.all(all);
  assert.deepEqual(gate.passing, ['red']);
  assert.deepEqual([...kernel], [[12, 38]]);
});

test('a failed change leaves the drops in force and is tried again at the next open()', async () => {
  const { marker, kernel, state } = memoryMarker();
  const gate = new RtxGate(marker, RTX);
  state.failing = true;
  await gate.open(['green']);
  assert.deepEqual(gate.passing, ['green', 'yellow', 'red'], 'the kernel drops nothing: said so');
  state.failing = false;
  await gate.open(['green']);
  assert.deepEqual(gate.passing, ['green']);
  assert.deepEqual([...kernel], [[12, 38], [13, 38]]);
});

test('a gate closed while its change runs leaves nothing behind', async () => {
  const { marker, kernel } = memoryMarker();
  const gate = new RtxGate(marker, RTX);
  const running = gate.open(['green']);
  gate.close();
  await running;
  await new Promise((r) => setImmediate(r));
  assert.equal(kernel.size, 0);
  await gate.open(['green']);
  assert.equal(kernel.size, 0, 'closed: open() does nothing');
});
