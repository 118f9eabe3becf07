/**
 * The STUN and TURN servers the player's RTCPeerConnection is given: a fixed
 * list (ICE_SERVERS), and a TURN server that shares a secret with this server
 * (TURN_URL, TURN_SECRET), whose credentials are made per viewer and expire,
 * in the scheme coturn's `use-auth-secret` checks (the "TURN REST API"):
 * username `<expiry unix time>:<viewer id>`, credential
 * base64(HMAC-SHA1(secret, username)). A leaked credential is worth nothing
 * after its expiry, and the secret never leaves the server.
 */
import { createHmac } from 'node:crypto';
import { z } from 'zod';
import type { IceServer } from '@pels/shared/protocol/signaling';

export interface SharedSecretTurn {
  urls: string[];
  secret: string;
  /** How long a credential stays valid: a relayed session needs it for each allocation refresh. */
  ttlS: number;
}

export interface IceSettings {
  servers: IceServer[];
  turn: SharedSecretTurn | undefined;
}

const iceUrl = z.string().regex(/^(stun|stuns|turn|turns):\S+$/, 'each URL must start with stun:, stuns:, turn: or turns: and hold no spaces');
const isTurn = (u: string) => /^turns?:/.test(u);
const iceServersSchema = z.array(
  z
    .object({ urls: z.union([iceUrl, z.array(iceUrl).min(1)]), username: z.string().min(1).optional(), credential: z.string().min(1).optional() })
    .strict()
    // Browsers refuse a TURN server without both (RTCPeerConnection throws InvalidAccessError).
    .refine((s) => ![s.urls].flat().some(isTurn) || (s.username !== undefined && s.credential !== undefined), 'a turn: or turns: server needs username and credential'),
);

/** ICE_SERVERS: a JSON list of RTCIceServer objects; throws with what is wrong. */
export function parseIceServers(json: string): IceServer[] {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new Error('not valid JSON; expected a list like [{"urls":"stun:stun.example.org:3478"}]');
  }
  const r = iceServersSchema.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  throw new Error(`${issue.path.length ? `at ${issue.path.join('.')}: ` : ''}${issue.message}`);
}

/** TURN_URL: turn: or turns: URLs separated by commas. */
export function parseTurnUrls(text: string): string[] {
  const urls = text.split(',').map((u) => u.trim()).filter(Boolean);
  const bad = urls.find((u) => !/^turns?:\S+$/.test(u));
  if (!urls.length || bad !== undefined) throw new Error(`expected turn: or turns: URLs separated by commas, got "${bad ?? text}"`);
  return urls;
}

/** A time-limited TURN credential for `user`, valid until `expiresAtS` (unix seconds). */
export function turnCredentials(secret: string, user: string, expiresAtS: number): { username: string; credential: string } {
  const username = `${expiresAtS}:${user}`;
  return { username, credential: createHmac('sha1', secret).update(username).digest('base64') };
}

/** The ICE servers one viewer's player gets. */
export function iceServersFor(settings: IceSettings, viewerId: string, nowMs: number): IceServer[] {
  const { turn } = settings;
  if (!turn) return settings.servers;
  const expiresAtS = Math.floor(nowMs / 1000) + turn.ttlS;
  return [...settings.servers, { urls: turn.urls, ...turnCredentials(turn.secret, viewerId, expiresAtS) }];
}
