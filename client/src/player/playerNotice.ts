/**
 * The message shown over the video: what the source is doing when it is not sending
 * (stalled, restarting, failed) and what happens next, or that the server ended this
 * viewer for good and the user has to reconnect. Nothing while the source runs.
 */
import type { MediaTransport, UptaStatus } from '@pels/shared/protocol/api';
import type { StreamInfo, StreamState } from '@pels/shared/protocol/signaling';
import type { PlayerNotice, PlayerState } from '@pels/shared/protocol/playerHook';

export type { PlayerNotice };

const SOURCE_TEXT: Record<Exclude<StreamState, 'running'>, string> = {
  starting: 'The source is starting.',
  stalled: 'The source stopped sending. If it does not resume within a few seconds, the server restarts it.',
  restarting: 'The source is being restarted. The video resumes when it sends again.',
  failed: 'The source failed. The server keeps trying to start it again.',
  stopped: 'The stream has stopped.',
  waiting: 'Waiting for the broadcast.',
  reconnecting: 'The broadcast is reconnecting.',
};

export function playerNotice(view: {
  state: PlayerState;
  error: string | undefined;
  streams: readonly StreamInfo[];
  streamId: string | undefined;
}): PlayerNotice | undefined {
  if (view.state === 'unsupported') return { cause: 'unsupported', text: view.error ?? 'This browser cannot play the stream.' };
  if (view.state === 'disconnected') {
    return { cause: 'disconnected', text: `${asSentence(view.error ?? 'the server ended this viewer')} This player does not reconnect by itself.` };
  }
  // The stream's state is current only while a session is joined or joining.
  if (view.state !== 'connecting' && view.state !== 'playing') return undefined;
  const stream = view.streams.find((s) => s.id === view.streamId);
  if (!stream || stream.state === 'running') return undefined;
  return { cause: stream.state, text: SOURCE_TEXT[stream.state], ...(stream.error ? { detail: stream.error } : {}) };
}

/** What the path of the media means for this viewer, when it is not the direct UDP path PELS needs. */
export function mediaPathNotice(transport: MediaTransport | null): string | undefined {
  if (transport === 'tcp') return 'The video comes over TCP (this network blocks UDP to the server): the server sends it best effort, without PELS colors.';
  if (transport === 'relay') return 'The video comes through a TURN relay: the server sends it best effort, without PELS colors.';
  return undefined;
}

/** What the server's useless-packet avoidance does to this viewer, when it holds back anything. */
export function uptaNotice(upta: UptaStatus | null): { kind: 'warning' | 'info'; text: string } | undefined {
  if (upta?.state === 'paused') {
    return {
      kind: 'warning',
      text: `Video paused: this connection loses too many packets for the video to be watchable (${upta.reason}). It resumes by itself when the connection recovers.`,
    };
  }
  if (upta?.state === 'baseOnly') return { kind: 'info', text: 'This connection loses too many packets for full quality: the server sends the base layer only (a lower frame rate) until it recovers.' };
  return undefined;
}

/** "the server closed ..." -> "The server closed ....": messages are written to be embedded, shown as sentences. */
export function asSentence(s: string): string {
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}.`;
}
