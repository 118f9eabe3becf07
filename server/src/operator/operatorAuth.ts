/**
 * The operator token: what the dashboard, the operator API, /metrics and the
 * router agent present (`Authorization: Bearer <token>`; the dashboard's feed
 * sends it in its first message). Viewers never need it.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { RequestError } from '../errors';
import type { Route } from '../http/httpServer';

export class OperatorAuth {
  private readonly digest: Buffer;

  constructor(token: string) {
    this.digest = sha256(token);
  }

  /**
   * Constant time whatever the candidate: both sides are hashed first, so the
   * comparison is of equal-length digests and leaks neither the token's
   * length nor how many leading characters matched.
   */
  matches(candidate: string): boolean {
    return timingSafeEqual(sha256(candidate), this.digest);
  }

  /** Throws 401 unless the request carries the token as a bearer credential. */
  check(req: IncomingMessage): void {
    const header = req.headers.authorization ?? '';
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) throw new RequestError('unauthorized', 'operator token required: send "Authorization: Bearer <OPERATOR_TOKEN>"');
    if (!this.matches(m[1]!)) throw new RequestError('unauthorized', 'operator token is not valid');
  }

  /** The same routes, each refusing a request without the token before it reads the body or changes anything. */
  guard(routes: readonly Route[]): Route[] {
    return routes.map((r) => ({
      ...r,
      handler: (req, params) => {
        this.check(req);
        return r.handler(req, params);
      },
    }));
  }
}

/** A fresh token for a server started without OPERATOR_TOKEN: 192 random bits. */
export function generateToken(): string {
  return randomBytes(24).toString('base64url');
}

function sha256(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}
