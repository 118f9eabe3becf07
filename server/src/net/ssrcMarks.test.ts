import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SsrcMarks } from './ssrcMarks';

/** Takes the pending changes and has the kernel take them. */
function commit(m: SsrcMarks): ReturnType<SsrcMarks['takeChanges']> {
  const c = m.takeChanges();
  m.committed(c);
  return c;
}

test('marks become additions, removals become deletions, each SSRC once', () => {
  const m = new SsrcMarks();
  const a = {};
  const b = {};
  m.add(a, [
    { ssrc: 1, dscp: 34 },
    { ssrc: 2, dscp: 36 },
  ]);
  m.add(b, [{ ssrc: 3, dscp: 38 }]);
  assert.deepEqual(commit(m), { flush: false, remove: [], add: [{ ssrc: 1, dscp: 34 }, { ssrc: 2, dscp: 36 }, { ssrc: 3, dscp: 38 }] });
  assert.equal(m.size, 3);
  m.remove(a);
  m.remove(a);
  assert.deepEqual(commit(m), { flush: false, remove: [1, 2], add: [] });
  assert.deepEqual(commit(m), { flush: false, remove: [], add: [] });
  assert.equal(m.size, 1);
  assert.throws(() => m.add(b, [{ ssrc: 4, dscp: 0 }]), /already marks/);
});

test('the latest marking of an SSRC wins; removing it brings back the one before', () => {
  const m = new SsrcMarks();
  const pels = {};
  const bestEffort = {};
  m.add(pels, [{ ssrc: 7, dscp: 34 }]);
  commit(m);
  m.add(bestEffort, [{ ssrc: 7, dscp: 0 }]);
  // A changed value is a delete and an add of the key, in one transaction.
  assert.deepEqual(commit(m), { flush: false, remove: [7], add: [{ ssrc: 7, dscp: 0 }] });
  m.remove(pels);
  assert.deepEqual(commit(m), { flush: false, remove: [], add: [] }, 'the older marking was not in force');
  const again = {};
  m.add(again, [{ ssrc: 7, dscp: 34 }]);
  m.remove(again); // within one batch: nothing to do
  assert.deepEqual(commit(m), { flush: false, remove: [], add: [] });
  m.remove(bestEffort);
  assert.deepEqual(commit(m), { flush: false, remove: [7], add: [] });
  assert.equal(m.size, 0);
});

test('after a failure the next change is the whole content, from an emptied map', () => {
  const m = new SsrcMarks();
  const a = {};
  const b = {};
  m.add(a, [{ ssrc: 1, dscp: 34 }]);
  commit(m);
  m.add(b, [{ ssrc: 2, dscp: 36 }]);
  m.takeChanges();
  m.failed();
  m.remove(a);
  assert.deepEqual(commit(m), { flush: true, remove: [], add: [{ ssrc: 2, dscp: 36 }] });
  assert.equal(m.size, 1);
  m.add({}, [{ ssrc: 3, dscp: 38 }]);
  assert.deepEqual(commit(m), { flush: false, remove: [], add: [{ ssrc: 3, dscp: 38 }] });
});

test('a drop wins over every DSCP marking, older or newer; removing it brings back the latest DSCP', () => {
  const m = new SsrcMarks();
  const pels = {};
  const gate = {};
  m.add(pels, [{ ssrc: 5, dscp: 36 }]);
  m.add(gate, [{ ssrc: 5, dscp: 'drop' }]);
  assert.deepEqual(commit(m), { flush: false, remove: [], add: [{ ssrc: 5, dscp: 'drop' }] });
  // A mode switch re-marks the SSRC after the gate closed: the gate stays closed.
  const bestEffort = {};
  m.add(bestEffort, [{ ssrc: 5, dscp: 0 }]);
  m.remove(pels);
  assert.deepEqual(commit(m), { flush: false, remove: [], add: [] });
  m.remove(gate);
  assert.deepEqual(commit(m), { flush: false, remove: [5], add: [{ ssrc: 5, dscp: 0 }] });
  // After a failure the rewrite keeps the drops.
  m.add({}, [{ ssrc: 6, dscp: 'drop' }]);
  m.failed();
  assert.deepEqual(commit(m), { flush: true, remove: [], add: [{ ssrc: 5, dscp: 0 }, { ssrc: 6, dscp: 'drop' }] });
});
