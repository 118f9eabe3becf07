import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../config';

const limitsFrom = (env: NodeJS.ProcessEnv) => loadConfig(env, '/nonexistent').limits;

test('limits come from the environment, with defaults; a stream may take every place unless told otherwise', () => {
  assert.deepEqual(limitsFrom({}), {
    maxViewers: 100,
    maxViewersPerStream: 100,
    maxSocketsPerAddress: 64,
    maxPendingRequests: 32,
    dtlsTimeoutMs: 30_000,
    maxSendBufferBytes: 1 << 20,
  });
  assert.equal(limitsFrom({ MAX_VIEWERS: '7' }).maxViewersPerStream, 7);
  assert.deepEqual(
    limitsFrom({ MAX_VIEWERS: '7', MAX_VIEWERS_PER_STREAM: '3', MAX_SOCKETS_PER_ADDRESS: '5', MAX_PENDING_REQUESTS: '4', DTLS_TIMEOUT_MS: '1500', MAX_SEND_BUFFER_BYTES: '65536' }),
    { maxViewers: 7, maxViewersPerStream: 3, maxSocketsPerAddress: 5, maxPendingRequests: 4, dtlsTimeoutMs: 1500, maxSendBufferBytes: 65536 },
  );
});

test('a limit that is not a whole number in range is refused at start, naming the variable', () => {
  for (const [name, value] of [['MAX_VIEWERS', '0'], ['MAX_PENDING_REQUESTS', '2.5'], ['DTLS_TIMEOUT_MS', '10'], ['MAX_SEND_BUFFER_BYTES', '1024'], ['MAX_SOCKETS_PER_ADDRESS', 'many']] as const) {
    assert.throws(() => limitsFrom({ [name]: value }), (err: unknown) => err instanceof ConfigError && err.message.startsWith(name), `${name}=${value}`);
  }
});
