import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { JoinPhases } from './joinPhases';

describe('JoinPhases', () => {
  it('times each phase from the end of the one before, in order', () => {
    let t = 100;
    const phases = new JoinPhases(() => t);
    t = 130;
    phases.end('connect');
    t = 180.4;
    phases.end('join');
    t = 181;
    phases.end('firstFrame');
    assert.deepEqual(Object.entries(phases.ms), [
      ['connect', 30],
      ['join', 50],
      ['firstFrame', 1],
    ]);
  });
});
