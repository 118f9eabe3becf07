/**
 * WHIP (RFC 9725) ingest: `POST /whip/<stream>` with the stream key as a
 * bearer token and an SDP offer answers `201 Created`, the SDP answer, the
 * session's resource in `Location` and the ICE servers in `Link` headers;
 * `DELETE` on the resource ends the publish. The server is ICE-lite and puts
 * all its candidates in the answer, so trickle (PATCH) is answered 405. The
 * key is checked (and the attempt counted) before the offer is read further;
 * an offer the server cannot take is refused with 400 and what is wrong.
 */
import type { IncomingMessage } from 'node:http';
import type { types as ms } from 'mediasoup';
import type { IceServer } from '@pels/shared/protocol/signaling';
import { RequestError } from '../../errors';
import { HttpAnswer, readText, TextBody, type Route } from '../../http/httpServer';
import type { Logger } from '../../log';
import { PublishRefused, type PublishGate } from '../publishGate';
import type { LiveTarget } from '../publisher';
import { parseSdpOffer, SdpError } from './sdp';
import { planPublish } from './whipOffer';
import { WhipSession } from './whipSession';

export const WHIP_PATH = '/whip';
/** A publisher has this long after the answer to connect. */
const CONNECT_TIMEOUT_MS = 15_000;
/** A publisher whose ICE consent checks stop this long is gone (its stream starts reconnecting). */
const ICE_CONSENT_TIMEOUT_S = 10;

/** Browsers may publish from another origin: the key is a bearer token, not a cookie, so any origin is as safe as none. */
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, DELETE, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type',
  'access-control-expose-headers': 'location, link',
  'access-control-max-age': '600',
};

export interface WhipRouteDeps {
  gate: Pick<PublishGate, 'admit' | 'countMalformed'>;
  addressOf: (req: IncomingMessage) => string;
  /** A new router with the WHIP codecs on the media worker, and that worker's WebRtcServer. */
  media: () => Promise<{ router: ms.Router; webRtcServer: ms.WebRtcServer }>;
  /** The ICE servers a publisher is told of (TURN credentials made for `sessionId`). */
  iceServers: (sessionId: string) => IceServer[];
  /** Publish sessions open at once, at most (PUBLISH_MAX_CONNECTIONS). */
  maxSessions: number;
  log: Logger;
}

export class WhipIngest {
  private readonly sessions = new Map<string, { streamId: string; session: WhipSession }>();

  constructor(private readonly d: WhipRouteDeps) {}

  get routes(): Route[] {
    const options = (allow: string) => () => new HttpAnswer(204, { allow, 'accept-post': 'application/sdp' });
    return [
      { method: 'OPTIONS', path: `${WHIP_PATH}/:stream`, headers: CORS, handler: options('OPTIONS, POST') },
      { method: 'POST', path: `${WHIP_PATH}/:stream`, headers: CORS, handler: (req, { stream }) => this.publish(req, stream!) },
      { method: 'OPTIONS', path: `${WHIP_PATH}/:stream/:session`, headers: CORS, handler: options('OPTIONS, DELETE') },
      { method: 'DELETE', path: `${WHIP_PATH}/:stream/:session`, headers: CORS, handler: (_req, { stream, session }) => this.end(stream!, session!) },
    ];
  }

  /** Publish sessions open now. */
  get size(): number {
    return this.sessions.size;
  }

  /** Ends every session (the server stops). */
  close(): void {
    for (const { session } of [...this.sessions.values()]) session.close('the server is stopping');
  }

  private async publish(req: IncomingMessage, streamId: string): Promise<HttpAnswer> {
    const address = this.d.addressOf(req);
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/sdp') throw new RequestError('bad_request', 'Content-Type must be application/sdp (a WHIP offer)');
    const auth = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (this.sessions.size >= this.d.maxSessions) throw new RequestError('unavailable', `${this.d.maxSessions} WHIP publishers at once already (PUBLISH_MAX_CONNECTIONS)`);
    const offerText = await readText(req);
    let target: LiveTarget;
    try {
      target = this.d.gate.admit('whip', address, auth?.[1] ?? '', streamId);
    } catch (err) {
      if (!(err instanceof PublishRefused)) throw err;
      if (err.reason === 'rate_limited' || err.reason === 'locked_out') throw new RequestError('rate_limited', err.message, err.retryAfterS);
      if (err.reason === 'busy') throw new RequestError('invalid_state', `${err.message}; the stream's operator may allow a takeover`);
      throw new RequestError('unauthorized', auth ? err.message : 'no stream key: send it as "Authorization: Bearer <key>"');
    }
    let plan;
    try {
      plan = planPublish(parseSdpOffer(offerText));
    } catch (err) {
      if (!(err instanceof SdpError)) throw err;
      this.d.gate.countMalformed('whip');
      throw new RequestError('bad_request', `bad SDP offer: ${err.message}`);
    }
    const { router, webRtcServer } = await this.d.media();
    const log = this.d.log.child({ stream: streamId, address });
    let opened;
    try {
      opened = await WhipSession.open(plan, {
        router,
        webRtcServer,
        address,
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
        iceConsentTimeoutS: ICE_CONSENT_TIMEOUT_S,
        log,
        onClose: (id) => this.sessions.delete(id),
      });
    } catch (err) {
      // What mediasoup refused of the offer (an SSRC or payload type it cannot take): the offer's fault, one line without a stack.
      log.warn({ reason: (err as Error).message }, 'WHIP offer refused by the media worker');
      this.d.gate.countMalformed('whip');
      throw new RequestError('bad_request', `bad SDP offer: ${(err as Error).message}`);
    }
    const { session, answer } = opened;
    if (session.isClosed) throw new RequestError('unavailable', 'the media worker closed while the offer was set up: try again');
    this.sessions.set(session.id, { streamId, session });
    target.attachPublisher(session.publisher);
    log.info({ session: session.id }, 'WHIP publisher accepted');
    return new HttpAnswer(201, { location: `${WHIP_PATH}/${encodeURIComponent(streamId)}/${session.id}`, ...linkHeader(this.d.iceServers(session.id)) }, new TextBody('application/sdp', answer));
  }

  private end(streamId: string, id: string): HttpAnswer {
    const s = this.sessions.get(id);
    if (!s || s.streamId !== streamId) throw new RequestError('not_found', 'no such WHIP session (it may have ended)');
    s.session.close('the publisher ended the publish (DELETE)');
    return new HttpAnswer(200, {});
  }
}

/** ICE servers as WHIP's Link headers (RFC 9725 section 4.6), one comma-separated header. */
export function linkHeader(servers: readonly IceServer[]): { link?: string } {
  const links = servers.flatMap((s) =>
    [s.urls].flat().map((url) => {
      const cred = s.username !== undefined && s.credential !== undefined ? `; username="${s.username}"; credential="${s.credential}"; credential-type="password"` : '';
      return `<${url}>; rel="ice-server"${cred}`;
    }),
  );
  return links.length ? { link: links.join(', ') } : {};
}
