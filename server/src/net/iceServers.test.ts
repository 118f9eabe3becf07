import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { iceServersFor, parseIceServers, parseTurnUrls, turnCredentials, type IceSettings } from './iceServers';

/** The credential as OpenSSL computes it: base64(HMAC-SHA1(secret, username)), independent of node:crypto. */
function opensslCredential(secret: string, username: string): string {
  const mac = execFileSync('openssl', ['dgst', '-sha1', '-hmac', secret, '-binary'], { input: username });
  return execFileSync('openssl', ['base64', '-A'], { input: mac, encoding: 'utf8' }).trim();
}

test("TURN credentials follow coturn's shared-secret scheme: username expiry:user, credential base64(HMAC-SHA1(secret, username))", () => {
  const secret = 'north-wind-4821';
  const { username, credential } = turnCredentials(secret, 'a1b2c3d4', 1_700_000_000);
  assert.equal(username, '1700000000:a1b2c3d4');
  assert.equal(credential, opensslCredential(secret, '1700000000:a1b2c3d4'));
  // A second vector, with bytes outside ASCII in the secret.
  const other = turnCredentials('sécret', 'viewer-9', 86_400);
  assert.equal(other.credential, opensslCredential('sécret', '86400:viewer-9'));
  assert.notEqual(other.credential, credential);
});

test('each viewer gets the fixed servers and a TURN entry of its own that expires ttl seconds from now', () => {
  const settings: IceSettings = { servers: [{ urls: 'stun:stun.example.org' }], turn: { urls: ['turn:t.example.org:3478'], secret: 's', ttlS: 3600 } };
  const servers = iceServersFor(settings, 'v1', 1_000_000_500);
  assert.equal(servers[1]!.username, '1003600:v1');
  assert.deepEqual(servers, [{ urls: 'stun:stun.example.org' }, { urls: ['turn:t.example.org:3478'], ...turnCredentials('s', 'v1', 1_000_000 + 3600) }]);
  assert.deepEqual(iceServersFor({ servers: [], turn: undefined }, 'v1', 0), []);
});

test('ICE_SERVERS: a JSON list of RTCIceServer; what browsers would refuse is refused with the place named', () => {
  assert.deepEqual(parseIceServers('[]'), []);
  const list = [{ urls: 'stun:stun.example.org:3478' }, { urls: ['turn:t.example.org?transport=tcp', 'turns:t.example.org:5349'], username: 'u', credential: 'p' }];
  assert.deepEqual(parseIceServers(JSON.stringify(list)), list);
  assert.throws(() => parseIceServers('stun:x'), /not valid JSON/);
  assert.throws(() => parseIceServers('{"urls":"stun:x"}'), /expected array/i);
  assert.throws(() => parseIceServers('[{"urls":"http://x"}]'), /at 0\.urls: each URL must start with stun:, stuns:, turn: or turns:/);
  assert.throws(() => parseIceServers('[{"urls":"turn:x"}]'), /at 0: a turn: or turns: server needs username and credential/);
  assert.throws(() => parseIceServers('[{"urls":"stun:x","password":"p"}]'), /at 0: Unrecognized key/);
  assert.throws(() => parseIceServers('[{"urls":[]}]'), /at 0\.urls/);
});

test('TURN_URL: turn: or turns: URLs separated by commas', () => {
  assert.deepEqual(parseTurnUrls('turn:t.example.org:3478, turns:t.example.org:5349?transport=tcp'), ['turn:t.example.org:3478', 'turns:t.example.org:5349?transport=tcp']);
  assert.throws(() => parseTurnUrls('stun:t.example.org'), /expected turn: or turns: URLs separated by commas, got "stun:t.example.org"/);
  assert.throws(() => parseTurnUrls(' , '), /expected turn: or turns: URLs/);
});
