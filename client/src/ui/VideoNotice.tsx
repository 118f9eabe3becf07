import type { PlayerNotice } from '../player/playerNotice';

/** The player's notice over the video (see playerNotice); a disconnect for good offers a reconnect. */
export function VideoNotice({ notice, onReconnect }: { notice: PlayerNotice | undefined; onReconnect(): void }) {
  if (!notice) return null;
  return (
    <div className={`video-notice video-notice-${notice.cause}`} role="status" data-testid="video-notice" data-cause={notice.cause}>
      <p>{notice.text}</p>
      {notice.detail && <p className="video-notice-detail">{notice.detail}</p>}
      {notice.cause === 'disconnected' && (
        <button type="button" onClick={onReconnect}>
          Reconnect
        </button>
      )}
    </div>
  );
}
