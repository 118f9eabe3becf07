/**
 * Bearer tokens (`Authorization: Bearer <token>`; the dashboard's feed sends
 * it in its first message). The operator token opens every operator route;
 * a scoped token opens only its own: METRICS_TOKEN `GET /metrics`,
 * ROUTER_TOKEN `POST /api/router-feedback`, CLUSTER_TOKEN an origin's `/cluster/ws` (its edges). Viewers need none.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { RequestError } from '../errors';
import type { Route } from '../http/httpServer';
import type { AddressRateLimit } from '../limits/addressRateLimit';

/** What a scoped token may do besides nothing: read metrics, post router feedback, or pipe an origin's streams to an edge. */
export type TokenScope = 'metrics' | 'router' | 'cluster';

const SCOPE_TOKEN_NAME: Record<TokenScope, string> = { metrics: 'METRICS_TOKEN', router: 'ROUTER_TOKEN', cluster: 'CLUSTER_TOKEN' };

/** Wrong tokens counted per client address: past the limit every attempt from it is refused, right or wrong, until it has one again. */
export interface FailureLimit {
  limit: AddressRateLimit;
  addressOf: (req: IncomingMessage) => string | undefined;
  /** Counts a refusal (for /metrics). */
  onRefused?: () => void;
}

export class OperatorAuth {
  private readonly digest: Buffer;
  private readonly scoped = new Map<TokenScope, Buffer>();

  constructor(
    operatorToken: string,
    scopedTokens: Partial<Record<TokenScope, string | undefined>> = {},
    private readonly failures?: FailureLimit,
  ) {
    this.digest = sha256(operatorToken);
    for (const [scope, token] of Object.entries(scopedTokens) as [TokenScope, string | undefined][]) {
      if (token !== undefined) this.scoped.set(scope, sha256(token));
    }
  }

  /**
   * Whether the candidate is the operator token or, given a scope, that
   * scope's token. Constant time whatever the candidate: both sides are
   * hashed first, so the comparison is of equal-length digests and leaks
   * neither a token's length nor how many leading characters matched.
   */
  matches(candidate: string, scope?: TokenScope): boolean {
    const digest = sha256(candidate);
    const operator = timingSafeEqual(digest, this.digest);
    const scoped = scope !== undefined && this.scoped.has(scope) && timingSafeEqual(digest, this.scoped.get(scope)!);
    return operator || scoped;
  }

  /**
   * Throws unless `candidate` is the operator token (or the scope's): `rate_limited` while the address is past its
   * wrong tokens (a guess then learns nothing), else `unauthorized`, charged to the address.
   */
  verify(address: string | undefined, candidate: string, scope?: TokenScope): void {
    const { failures } = this;
    if (failures && !failures.limit.allows(address)) {
      failures.onRefused?.();
      const retryAfterS = failures.limit.retryAfterS(address);
      throw new RequestError('rate_limited', `too many wrong tokens from this address, try again in ${retryAfterS} s`, retryAfterS);
    }
    if (this.matches(candidate, scope)) return;
    failures?.limit.take(address);
    const wanted = scope === undefined ? 'OPERATOR_TOKEN' : `${SCOPE_TOKEN_NAME[scope]} or OPERATOR_TOKEN`;
    throw new RequestError('unauthorized', `token is not valid here (this route takes ${wanted})`);
  }

  /** Throws 401 unless the request carries the operator token (or the scope's token) as a bearer credential; 429 past the address's wrong tokens. */
  check(req: IncomingMessage, scope?: TokenScope): void {
    const header = req.headers.authorization ?? '';
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const wanted = scope === undefined ? 'OPERATOR_TOKEN' : `${SCOPE_TOKEN_NAME[scope]} or OPERATOR_TOKEN`;
    if (!m) throw new RequestError('unauthorized', `token required: send "Authorization: Bearer <${wanted}>"`);
    this.verify(this.failures?.addressOf(req), m[1]!, scope);
  }

  /**
   * The same routes, each refusing a request without the operator token (or
   * the scope's token) before it reads the body or changes anything.
   */
  guard(routes: readonly Route[], scope?: TokenScope): Route[] {
    return routes.map((r) => ({
      ...r,
      handler: (req, params) => {
        this.check(req, scope);
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
