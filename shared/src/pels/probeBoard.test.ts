import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProbeBoard } from './probeBoard';

test('one claim at a time for the hold; the holder may ask again, which extends it', () => {
  const board = new ProbeBoard(1000);
  const a = {};
  const b = {};
  assert.equal(board.claim(a, 0), true);
  assert.equal(board.claim(b, 500), false);
  assert.equal(board.claim(a, 600), true);
  assert.equal(board.claim(b, 1599), false);
  assert.equal(board.claim(b, 1600), true);
});

test('a release frees the board; only its holder can release it', () => {
  const board = new ProbeBoard(1000);
  const a = {};
  const b = {};
  board.claim(a, 0);
  board.release(b);
  assert.equal(board.claim(b, 10), false);
  board.release(a);
  assert.equal(board.claim(b, 20), true);
});

test('others see the running probe by its number, a new one per claim (not per ask); the holder sees none', () => {
  const board = new ProbeBoard(1000);
  const a = {};
  const b = {};
  assert.equal(board.probingOther(b, 0), null);
  board.claim(a, 0);
  const first = board.probingOther(b, 100);
  assert.notEqual(first, null);
  assert.equal(board.probingOther(a, 100), null);
  board.claim(a, 500);
  assert.equal(board.probingOther(b, 600), first, 'asked again: the same probe');
  assert.equal(board.probingOther(b, 1500), null, 'the hold is over');
  board.claim(a, 2000);
  assert.notEqual(board.probingOther(b, 2100), first);
});

test('a negative or non-finite hold is refused', () => {
  assert.throws(() => new ProbeBoard(-1), RangeError);
  assert.throws(() => new ProbeBoard(Number.NaN), RangeError);
});
