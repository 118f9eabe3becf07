/**
 * Stream keys: what a publisher shows to send to a live stream. A key is 32
 * random bytes (base64url, 43 characters); the server keeps only its SHA-256.
 * A key that long cannot be guessed, so a fast unsalted hash is enough, and it
 * lets a publisher that names only its key (RTMP, SRT) be matched to its stream.
 */
import { createHash, randomBytes } from 'node:crypto';

export const STREAM_KEY_PATTERN = /^[A-Za-z0-9_-]{43}$/;
export const KEY_HASH_PATTERN = /^[0-9a-f]{64}$/;

export function generateStreamKey(): string {
  return randomBytes(32).toString('base64url');
}

export function hashStreamKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
