import assert from 'node:assert/strict';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { resolveMediaFile, resolveSource } from './mediaFiles';
import { SourceError } from './sourcePolicy';

let root: string;
let media: string;
let more: string;
let outside: string;

before(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'pels-media-test-')));
  media = join(root, 'media');
  more = join(root, 'more');
  outside = join(root, 'outside');
  for (const d of [media, more, outside, join(media, 'sub')]) await mkdir(d, { recursive: true });
  await writeFile(join(media, 'clip.mp4'), 'x');
  await writeFile(join(media, 'sub', 'deep.mp4'), 'x');
  await writeFile(join(more, 'other.mp4'), 'x');
  await writeFile(join(outside, 'secret.txt'), 'x');
  await symlink(join(outside, 'secret.txt'), join(media, 'link-out.mp4'));
  await symlink(join(media, 'clip.mp4'), join(outside, 'link-in.mp4'));
  await symlink(outside, join(media, 'dir-out'));
  await symlink(media, join(root, 'media-link'));
});

after(() => rm(root, { recursive: true, force: true }));

const refusedWith = (re: RegExp) => (e: unknown) => e instanceof SourceError && re.test(e.message);

test('a file inside a media directory resolves to its real path, absolute or relative to each directory in order', async () => {
  const dirs = [media, more];
  assert.equal(await resolveMediaFile(join(media, 'clip.mp4'), dirs), join(media, 'clip.mp4'));
  assert.equal(await resolveMediaFile(join(media, 'sub', '..', 'clip.mp4'), dirs), join(media, 'clip.mp4'));
  assert.equal(await resolveMediaFile('clip.mp4', dirs), join(media, 'clip.mp4'));
  assert.equal(await resolveMediaFile('sub/deep.mp4', dirs), join(media, 'sub', 'deep.mp4'));
  assert.equal(await resolveMediaFile('other.mp4', dirs), join(more, 'other.mp4'));
  // A media directory given through a link: paths under its name and under its real path are inside.
  assert.equal(await resolveMediaFile(join(media, 'clip.mp4'), [join(root, 'media-link')]), join(media, 'clip.mp4'));
  assert.equal(await resolveMediaFile(join(root, 'media-link', 'clip.mp4'), [join(root, 'media-link')]), join(media, 'clip.mp4'));
});

test('paths outside the media directories are refused, by name or through a link', async () => {
  const dirs = [media];
  const cases: Array<[string, RegExp]> = [
    ['/etc/passwd', /source file \/etc\/passwd is outside the media directories \(MEDIA_DIR=.*\/media\)/],
    [join(media, '..', 'outside', 'secret.txt'), /is outside the media directories/],
    ['../outside/secret.txt', /is outside the media directories/],
    [`${media}-evil/clip.mp4`, /is outside the media directories/],
    [media, /is outside the media directories/],
    ['/no/such/file.mp4', /is outside the media directories/],
    ['link-out.mp4', /source file link-out.mp4 links to outside the media directories/],
    ['dir-out/secret.txt', /links to outside the media directories/],
    // Judged by name first: a path outside is refused even when it links back in.
    [join(outside, 'link-in.mp4'), /is outside the media directories/],
    [join(root, 'media-link', 'clip.mp4'), /is outside the media directories/],
    ['sub', /source sub is not a regular file/],
    ['missing.mp4', /source file not found or not readable: missing.mp4/],
  ];
  for (const [path, message] of cases) await assert.rejects(resolveMediaFile(path, dirs), refusedWith(message), path);
});

test('resolveSource: a file comes back with its real path and the directories it must stay in; other kinds as parsed', async () => {
  assert.deepEqual(await resolveSource('sub/deep.mp4', [media]), { kind: 'file', path: join(media, 'sub', 'deep.mp4'), mediaDirs: [media] });
  assert.deepEqual(await resolveSource('lavfi:testsrc2', []), { kind: 'lavfi', graph: 'testsrc2', generator: 'testsrc2' });
  await assert.rejects(resolveSource('concat:clip.mp4|clip.mp4', [media]), refusedWith(/"concat:" is an FFmpeg protocol/));
});
