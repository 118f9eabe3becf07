import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { SourceSpec } from '../ingest/sourceSpec';
import { EMPTY_STATE, withStreamAdded, withStreamRemoved, type OperatorState } from './operatorState';
import { streamsAtStart } from './streamsAtStart';

const media = mkdtempSync(join(tmpdir(), 'pels-media-'));
after(() => rmSync(media, { recursive: true, force: true }));
writeFileSync(join(media, 'clip.mpg'), 'frames');
const mediaDirs = [media];
const SOURCE: SourceSpec = { kind: 'lavfi', graph: 'testsrc2', generator: 'testsrc2' };

const saved = (...streams: Array<[string, string]>): OperatorState =>
  streams.reduce((s, [id, source]) => withStreamAdded(s, { id, name: `${id} name`, source }), EMPTY_STATE);

test("SOURCE's default stream first, then the saved ones in the order added, each source through the policy again", async () => {
  const { streams, refused } = await streamsAtStart(saved(['pattern', 'lavfi:testsrc=size=320x180'], ['clip', 'clip.mpg']), SOURCE, mediaDirs);
  assert.deepEqual(refused, []);
  assert.deepEqual(streams, [
    { id: 'default', name: 'Default stream', source: SOURCE },
    { id: 'pattern', name: 'pattern name', source: { kind: 'lavfi', graph: 'testsrc=size=320x180', generator: 'testsrc' } },
    { id: 'clip', name: 'clip name', source: { kind: 'file', path: realpathSync(join(media, 'clip.mpg')), mediaDirs } },
  ]);
});

test('a saved file that is gone or outside MEDIA_DIR still makes a stream (its ingest shows it failed); a source the policy refuses is set apart', async () => {
  const { streams, refused } = await streamsAtStart(
    saved(['gone', 'gone.mpg'], ['outside', '/etc/passwd'], ['text', 'lavfi:testsrc,drawtext=text=hi'], ['ok', 'lavfi:testsrc']),
    SOURCE,
    mediaDirs,
  );
  assert.deepEqual(
    streams.map((s) => [s.id, s.source]),
    [
      ['default', SOURCE],
      ['gone', { kind: 'file', path: 'gone.mpg', mediaDirs }],
      ['outside', { kind: 'file', path: '/etc/passwd', mediaDirs }],
      ['ok', { kind: 'lavfi', graph: 'testsrc', generator: 'testsrc' }],
    ],
  );
  assert.equal(refused.length, 1);
  assert.equal(refused[0]!.id, 'text');
  assert.match(refused[0]!.reason, /drawtext/);
});

test('once the operator removed the default stream, SOURCE serves nothing; a stream they added as "default" takes its place', async () => {
  let state = withStreamRemoved(EMPTY_STATE, 'default');
  assert.deepEqual((await streamsAtStart(state, SOURCE, mediaDirs)).streams, []);
  state = withStreamAdded(state, { id: 'default', name: 'Mine', source: 'lavfi:color' });
  assert.deepEqual((await streamsAtStart(state, SOURCE, mediaDirs)).streams, [
    { id: 'default', name: 'Mine', source: { kind: 'lavfi', graph: 'color', generator: 'color' } },
  ]);
});
