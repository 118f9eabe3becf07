import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../config';

const limitsFrom = (env: NodeJS.ProcessEnv) => loadConfig(env, '/nonexistent').limits;

test('limits come from the environment, with defaults; a stream may take every place unless told otherwise', () => {
  assert.deepEqual(limitsFrom({}), {
    maxViewers: 100,
    maxViewersPerStream: 100,
    maxViewersPerAddress: 10,
    maxSocketsPerAddress: 16,
    maxDashboardSocketsPerAddress: 4,
    maxStreams: 16,
    maxPendingRequests: 32,
    dtlsTimeoutMs: 30_000,
    maxSendBufferBytes: 1 << 20,
    turnCredentialsPerMinute: 30,
    authFailuresPerMinute: 10,
    placeRequestsPerMinute: 60,
  });
  assert.equal(limitsFrom({ MAX_VIEWERS: '7' }).maxViewersPerStream, 7);
  assert.deepEqual(
    limitsFrom({
      MAX_VIEWERS: '7',
      MAX_VIEWERS_PER_STREAM: '3',
      MAX_VIEWERS_PER_ADDRESS: '2',
      MAX_SOCKETS_PER_ADDRESS: '5',
      MAX_DASHBOARD_SOCKETS_PER_ADDRESS: '1',
      MAX_STREAMS: '3',
      MAX_PENDING_REQUESTS: '4',
      DTLS_TIMEOUT_MS: '1500',
      MAX_SEND_BUFFER_BYTES: '65536',
      TURN_CREDENTIALS_PER_MINUTE: '6',
      AUTH_FAILURES_PER_MINUTE: '3',
      PLACE_REQUESTS_PER_MINUTE: '9',
    }),
    {
      maxViewers: 7,
      maxViewersPerStream: 3,
      maxViewersPerAddress: 2,
      maxSocketsPerAddress: 5,
      maxDashboardSocketsPerAddress: 1,
      maxStreams: 3,
      maxPendingRequests: 4,
      dtlsTimeoutMs: 1500,
      maxSendBufferBytes: 65536,
      turnCredentialsPerMinute: 6,
      authFailuresPerMinute: 3,
      placeRequestsPerMinute: 9,
    },
  );
});

test('a limit that is not a whole number in range is refused at start, naming the variable', () => {
  for (const [name, value] of [['MAX_VIEWERS', '0'], ['MAX_PENDING_REQUESTS', '2.5'], ['DTLS_TIMEOUT_MS', '10'], ['MAX_SEND_BUFFER_BYTES', '1024'], ['MAX_SOCKETS_PER_ADDRESS', 'many']] as const) {
    assert.throws(() => limitsFrom({ [name]: value }), (err: unknown) => err instanceof ConfigError && err.message.startsWith(name), `${name}=${value}`);
  }
});
