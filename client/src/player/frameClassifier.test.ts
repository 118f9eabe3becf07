import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { classifyVp8Frame, WriteBackPolicy } from './frameClassifier';

const hex = (s: string) => Uint8Array.from(s.match(/../g)!.map((b) => parseInt(b, 16)));
/** The server's synthetic 16x16 gray keyframe (libvpx). */
const SYNTHETIC = hex('1002009d012a100010000047088585888584880202000c0e6000fe6800');
/** The same keyframe claiming 640x360: a real-size keyframe as far as the header goes. */
const KEY_640 = hex('1002009d012a80026801' + '0047088585888584880202000c0e6000fe6800');
/** An interframe whose first partition reads as all zeros: refreshes nothing, so TID 2. */
const DELTA = hex('1102000000000000');

describe('classifyVp8Frame', () => {
  it('recognizes the synthetic 16x16 keyframe', () => {
    assert.deepEqual(classifyVp8Frame(SYNTHETIC), { kind: 'synthetic-keyframe' });
  });

  it('reads keyframe, size and layer of media frames', () => {
    assert.deepEqual(classifyVp8Frame(KEY_640), { kind: 'media', keyframe: true, temporalId: 0, width: 640, height: 360 });
    assert.deepEqual(classifyVp8Frame(DELTA), { kind: 'media', keyframe: false, temporalId: 2, width: 0, height: 0 });
  });

  it('reports frames that are not VP8', () => {
    assert.equal(classifyVp8Frame(new Uint8Array([0x10, 0x02])).kind, 'invalid');
    assert.equal(classifyVp8Frame(hex('1002000000000000000000')).kind, 'invalid'); // keyframe without start code
  });
});

describe('WriteBackPolicy', () => {
  it('writes back synthetic keyframes, and green keyframes as the last synthetic one', () => {
    const p = new WriteBackPolicy();
    const key = classifyVp8Frame(KEY_640);
    const delta = classifyVp8Frame(DELTA);
    // Before any synthetic keyframe there is nothing to substitute.
    assert.deepEqual(p.decide('green', key, KEY_640), { kind: 'none' });
    assert.deepEqual(p.decide('yellow', classifyVp8Frame(SYNTHETIC), SYNTHETIC), { kind: 'as-is' });
    assert.deepEqual(p.decide('green', key, KEY_640), { kind: 'replace', data: SYNTHETIC });
    assert.deepEqual(p.decide('green', delta, DELTA), { kind: 'none' });
    assert.deepEqual(p.decide('yellow', delta, DELTA), { kind: 'none' });
    assert.deepEqual(p.decide('red', key, KEY_640), { kind: 'none' });
  });
});
