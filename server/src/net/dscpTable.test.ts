import assert from 'node:assert/strict';
import { test } from 'node:test';
import { changeElements } from './dscpTable';

const T = 'inet pels_x_pid1';

test('a change is one script: new DSCP chains, then the elements; a drop needs no chain', () => {
  const script = changeElements(T, { flush: false, remove: [7], add: [{ ssrc: 7, dscp: 'drop' }, { ssrc: 8, dscp: 36 }] }, [36]);
  assert.equal(
    script,
    `add chain ${T} dscp_36\nflush chain ${T} dscp_36\n` +
      `add rule ${T} dscp_36 ip dscp set 36\nadd rule ${T} dscp_36 ip6 dscp set 36\n` +
      `delete element ${T} ssrc_dscp { 7 }\n` +
      `add element ${T} ssrc_dscp { 7 : drop, 8 : goto dscp_36 }\n`,
  );
});

test('a rewrite flushes the map first; nothing to do is an empty script', () => {
  assert.equal(changeElements(T, { flush: true, remove: [], add: [{ ssrc: 1, dscp: 34 }] }, []), `flush map ${T} ssrc_dscp\nadd element ${T} ssrc_dscp { 1 : goto dscp_34 }\n`);
  assert.equal(changeElements(T, { flush: false, remove: [], add: [] }, []), '');
});
