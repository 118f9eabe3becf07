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
  board.release(b, 5);
  assert.equal(board.claim(b, 10), false);
  board.release(a, 10);
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

test('a loss that begins at another viewer during a probe marks it; its failure then quiets the board, doubling; a probe that holds resets the quiet', () => {
  const board = new ProbeBoard(1000, 4000, 10_000);
  const a = {};
  const b = {};
  board.claim(b, -1000);
  board.release(b, -900);
  assert.equal(board.claim(a, -800), true, 'a failed probe that hurt no one leaves the board open');
  board.release(a, -700);
  board.lossBegan(b, 0);
  board.claim(a, 0);
  assert.equal(board.hurtOthers(a, 100), false, 'the loss came before the probe');
  board.lossBegan(a, 100);
  assert.equal(board.hurtOthers(a, 100), false, 'its own loss is not another viewer\'s');
  board.lossBegan(b, 200);
  assert.equal(board.hurtOthers(a, 300), true);
  assert.equal(board.hurtOthers(b, 300), false, 'b runs no probe');
  board.release(a, 500);
  assert.equal(board.claim(b, 4499), false, 'quiet for 4 s');
  assert.equal(board.claim(b, 4500), true);
  board.lossBegan(a, 4600);
  board.release(b, 4700);
  assert.equal(board.claim(a, 12_699), false, 'quiet for 8 s after the second');
  assert.equal(board.claim(a, 12_700), true);
  board.lossBegan(b, 12_800);
  board.release(a, 12_900);
  assert.equal(board.claim(b, 22_899), false, 'at most 10 s');
  assert.equal(board.claim(b, 22_900), true);
  board.held();
  board.lossBegan(a, 23_000);
  board.release(b, 23_100);
  assert.equal(board.claim(a, 27_100), true, 'back to 4 s');
});

test('a negative or non-finite hold or quiet is refused, and a quiet maximum below its minimum', () => {
  assert.throws(() => new ProbeBoard(-1), RangeError);
  assert.throws(() => new ProbeBoard(Number.NaN), RangeError);
  assert.throws(() => new ProbeBoard(1000, -1), RangeError);
  assert.throws(() => new ProbeBoard(1000, 5000, 4000), /quietMaxMs/);
});
