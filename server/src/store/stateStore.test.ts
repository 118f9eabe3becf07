import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { EMPTY_STATE, withGains, withOperatorToken, withStreamAdded, withStreamRemoved, type OperatorState } from './operatorState';
import { encodeState, StoreError } from './stateCodec';
import { STATE_FILE_NAME, StateStore } from './stateStore';

const base = mkdtempSync(join(tmpdir(), 'pels-store-test-'));
after(() => rmSync(base, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(base, `d${++dirs}`);

const sample: OperatorState = withOperatorToken(
  withGains(withStreamRemoved(withStreamAdded(EMPTY_STATE, { id: 'pattern', name: 'Test pattern', source: 'lavfi:testsrc2' }), 'default'), { beta: 0.8 }),
  'generated-token-0123456789abcdef',
);

async function refusal(dir: string): Promise<string> {
  try {
    await StateStore.open(dir);
  } catch (err) {
    assert.ok(err instanceof StoreError, String(err));
    return err.message;
  }
  assert.fail('the store opened');
}

/** Writes `text` as the state file of a fresh directory. */
function dirWith(text: string): { dir: string; file: string } {
  const dir = freshDir();
  mkdirSync(dir);
  const file = join(dir, STATE_FILE_NAME);
  writeFileSync(file, text);
  return { dir, file };
}

test('no state directory or file yet: the directory is made (0700) and the state is empty', async () => {
  const dir = join(freshDir(), 'nested');
  const store = await StateStore.open(dir);
  assert.deepEqual(store.state, EMPTY_STATE);
  assert.equal(store.file, join(dir, STATE_FILE_NAME));
  assert.equal(statSync(dir).mode & 0o777, 0o700);
});

test('saved changes are what the next open reads; the file is 0600 and no temporary file stays', async () => {
  const dir = freshDir();
  const store = await StateStore.open(dir);
  store.change((s) => withStreamAdded(s, { id: 'pattern', name: 'Test pattern', source: 'lavfi:testsrc2' }));
  store.change((s) => withStreamRemoved(s, 'default'));
  store.change((s) => withGains(s, { beta: 0.8 }));
  store.change((s) => withOperatorToken(s, 'generated-token-0123456789abcdef'));
  await store.saved();
  assert.deepEqual((await StateStore.open(dir)).state, sample);
  assert.equal(statSync(store.file).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(dir), [STATE_FILE_NAME]);
});

test('a burst of changes: every saved() resolves and the file ends with the latest state', async () => {
  const dir = freshDir();
  const store = await StateStore.open(dir);
  const waits: Promise<void>[] = [];
  for (let i = 1; i <= 200; i++) {
    store.change((s) => withGains(s, { alphaKbps: i }));
    waits.push(store.saved());
  }
  await Promise.all(waits);
  assert.deepEqual((await StateStore.open(dir)).state.gains, { alphaKbps: 200 });
});

test('a write that fails rejects with a StoreError naming the file; the change is written by the next saved() that can', async () => {
  const dir = freshDir();
  const store = await StateStore.open(dir);
  renameSync(dir, `${dir}.away`);
  writeFileSync(dir, 'not a directory');
  store.change((s) => withGains(s, { beta: 1.1 }));
  await assert.rejects(store.saved(), (err: unknown) => err instanceof StoreError && err.message.includes(`cannot write the state file ${store.file}`));
  rmSync(dir);
  renameSync(`${dir}.away`, dir);
  await store.saved();
  assert.deepEqual((await StateStore.open(dir)).state.gains, { beta: 1.1 });
});

test('a damaged, truncated, edited, foreign or newer file is refused with a message naming the file and what to do; the file is left as it was', async () => {
  const good = encodeState(sample);
  const envelope = JSON.parse(good) as { state: OperatorState; version: number };
  const cases: Array<[string, string, RegExp]> = [
    ['empty', '', /is not valid JSON/],
    ['truncated', good.slice(0, Math.floor(good.length / 2)), /is not valid JSON \(truncated or damaged/],
    ['garbage', '\u0000\u0001binary', /is not valid JSON/],
    ['foreign JSON', '{"streams":[]}', /is not a PELS state file/],
    ['newer version', JSON.stringify({ ...envelope, version: 2 }), /has format version 2, and this server reads version 1/],
    ['edited value', good.replace('"beta":0.8', '"beta":0.9'), /fails its checksum \(damaged, or edited by hand\)/],
    ['one byte flipped', good.replace('Test pattern', 'Test pattErn'), /fails its checksum/],
  ];
  for (const [what, text, expected] of cases) {
    const { dir, file } = dirWith(text);
    const message = await refusal(dir);
    assert.match(message, expected, what);
    assert.ok(message.startsWith(`state file ${file} `), `${what}: ${message}`);
    assert.match(message, /Restore it from a backup, or move it aside/, what);
    assert.equal(readFileSync(file, 'utf8'), text, `${what}: file unchanged`);
  }
});

test('a file with a valid checksum but a state the server cannot have written is refused at the offending field', async () => {
  // Checksummed by encodeState, so only the schema can catch it.
  const duplicate = { ...EMPTY_STATE, streams: [sample.streams[0]!, sample.streams[0]!] } as OperatorState;
  const { dir, file } = dirWith(encodeState(duplicate));
  assert.match(await refusal(dir), new RegExp(`^state file ${file} holds an invalid state at streams\\.1\\.id: stream id "pattern" appears twice`));
});

test('a state file that cannot be read is refused, naming the file and the reason', async () => {
  const dir = freshDir();
  mkdirSync(join(dir, STATE_FILE_NAME), { recursive: true });
  assert.match(await refusal(dir), new RegExp(`^cannot read the state file ${join(dir, STATE_FILE_NAME)} \\(EISDIR.*Restore it from a backup`));
});

test('a state directory that cannot be made is refused, naming it', async () => {
  const { dir } = dirWith('x');
  const inside = join(dir, STATE_FILE_NAME, 'sub');
  assert.match(await refusal(inside), new RegExp(`^cannot create the state directory ${inside} \\(ENOTDIR.*set STATE_DIR to a writable directory`));
});
