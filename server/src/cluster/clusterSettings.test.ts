import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../config';
import { clusterSocketUrl } from './clusterSettings';

const TOKEN = 'cluster-secret-0123456789';

test('ROLE is all by default and needs nothing else', () => {
  assert.deepEqual(loadConfig({}, '/client').cluster, { role: 'all' });
});

test('an origin needs CLUSTER_TOKEN; an edge needs it and ORIGIN_URL', () => {
  assert.deepEqual(loadConfig({ ROLE: 'origin', CLUSTER_TOKEN: TOKEN }, '/client').cluster, { role: 'origin', token: TOKEN });
  const edge = loadConfig({ ROLE: 'edge', CLUSTER_TOKEN: TOKEN, ORIGIN_URL: 'http://10.0.0.5:8080' }, '/client').cluster;
  assert.equal(edge.role, 'edge');
  assert.equal(edge.role === 'edge' && clusterSocketUrl(edge.originUrl!), 'ws://10.0.0.5:8080/cluster/ws');
  assert.throws(() => loadConfig({ ROLE: 'origin' }, '/client'), /ROLE=origin needs CLUSTER_TOKEN/);
  assert.throws(() => loadConfig({ ROLE: 'edge', CLUSTER_TOKEN: TOKEN }, '/client'), /ROLE=edge needs ORIGIN_URL/);
});

test('an edge with a registry may go without ORIGIN_URL: it takes the origin the registry names', () => {
  const config = loadConfig({ ROLE: 'edge', CLUSTER_TOKEN: TOKEN, REDIS_URL: 'redis://10.0.0.2', REDIS_PASSWORD: 'redis-password-0123456' }, '/client');
  assert.deepEqual(config.cluster, { role: 'edge', token: TOKEN, originUrl: undefined });
  assert.deepEqual(config.registry, { redis: { host: '10.0.0.2', port: 6379, password: 'redis-password-0123456' }, nodeUrl: undefined, nodeId: undefined });
});

test('bad registry settings are refused with what is wrong', () => {
  const cases: [NodeJS.ProcessEnv, RegExp][] = [
    [{ REDIS_URL: 'http://r:6379' }, /REDIS_URL must be a redis:\/\/ URL/],
    [{ REDIS_URL: 'redis://:secret@r:6379' }, /must not carry credentials/],
    [{ REDIS_URL: 'redis://r:6379/2' }, /address only/],
    [{ REDIS_URL: 'redis://r', REDIS_PASSWORD: 'short' }, /at least 16 characters/],
    [{ REDIS_PASSWORD: 'redis-password-0123456' }, /set REDIS_URL too/],
    [{ REDIS_URL: 'redis://r', NODE_URL: 'http://n:8080/x' }, /NODE_URL is the node's address only/],
    [{ REDIS_URL: 'redis://r', NODE_ID: 'a b' }, /NODE_ID must be/],
  ];
  for (const [env, message] of cases) assert.throws(() => loadConfig(env, '/client'), (err: unknown) => err instanceof ConfigError && message.test(err.message), JSON.stringify(env));
});

test('bad cluster settings are refused with what is wrong', () => {
  const cases: [NodeJS.ProcessEnv, RegExp][] = [
    [{ ROLE: 'relay' }, /ROLE must be one of all, origin, edge, got "relay"/],
    [{ ORIGIN_URL: 'http://o:8080' }, /ORIGIN_URL is for ROLE=edge only/],
    [{ CLUSTER_TOKEN: TOKEN }, /CLUSTER_TOKEN is for ROLE=origin or edge only/],
    [{ ROLE: 'origin', CLUSTER_TOKEN: 'short' }, /CLUSTER_TOKEN must be at least 16/],
    [{ ROLE: 'origin', CLUSTER_TOKEN: TOKEN, OPERATOR_TOKEN: TOKEN }, /OPERATOR_TOKEN and CLUSTER_TOKEN must differ/],
    [{ ROLE: 'edge', CLUSTER_TOKEN: TOKEN, ORIGIN_URL: 'ftp://o' }, /ORIGIN_URL must be an http/],
    [{ ROLE: 'edge', CLUSTER_TOKEN: TOKEN, ORIGIN_URL: 'not a url' }, /ORIGIN_URL must be an http/],
    [{ ROLE: 'edge', CLUSTER_TOKEN: TOKEN, ORIGIN_URL: 'http://u:p@o:8080' }, /must not carry credentials/],
    [{ ROLE: 'edge', CLUSTER_TOKEN: TOKEN, ORIGIN_URL: 'http://o:8080/x' }, /address only/],
    [{ ROLE: 'edge', CLUSTER_TOKEN: TOKEN, ORIGIN_URL: 'http://o:8080', RTMP: 'on' }, /publishers on the origin/],
  ];
  for (const [env, message] of cases) assert.throws(() => loadConfig(env, '/client'), (err: unknown) => err instanceof ConfigError && message.test(err.message), JSON.stringify(env));
});
