import type { ErrorCode } from '@pels/shared/protocol/signaling';

/** An error whose message is meant for the client, with a protocol error code. */
export class RequestError extends Error {
  override name = 'RequestError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** When the client may try again (an HTTP answer's Retry-After). */
    readonly retryAfterS?: number,
  ) {
    super(message);
  }
}

/** Work asked of an object that was already closed. */
export class ClosedError extends RequestError {
  override name = 'ClosedError';
  constructor(what: string) {
    super('invalid_state', `${what} is closed`);
  }
}
