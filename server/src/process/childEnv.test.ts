import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { childEnv } from './childEnv';

test('a child gets PATH, HOME, the locale and what it is given, never the server\'s secrets', () => {
  const from = { PATH: '/usr/bin', HOME: '/root', LC_ALL: 'C.UTF-8', OPERATOR_TOKEN: 'x'.repeat(20), TURN_SECRET: 's', AWS_SECRET_ACCESS_KEY: 'k', NODE_OPTIONS: '--inspect' };
  assert.deepEqual(childEnv({ MEDIASOUP_VERSION: '3' }, from), { PATH: '/usr/bin', HOME: '/root', LC_ALL: 'C.UTF-8', MEDIASOUP_VERSION: '3' });
});

test('a real child started with it sees no secret of this process', () => {
  process.env.TURN_SECRET_FOR_TEST = 'must not pass';
  try {
    const out = spawnSync('env', [], { env: childEnv(), encoding: 'utf8' });
    assert.equal(out.status, 0);
    assert.ok(!out.stdout.includes('TURN_SECRET_FOR_TEST'));
    assert.match(out.stdout, /^PATH=/m);
  } finally {
    delete process.env.TURN_SECRET_FOR_TEST;
  }
});
