import type { Notification, Response } from '@pels/shared/protocol/signaling';

export type SendVerdict = 'send' | 'drop' | 'close';

/** Notifications a player can do without: the next one brings it up to date. Everything else must arrive. */
const DROPPABLE: ReadonlySet<string> = new Set<Notification['notification']>(['quality', 'viewerState']);

export function isDroppable(msg: Response | Notification): boolean {
  return 'notification' in msg && DROPPABLE.has(msg.notification);
}

/**
 * What to do with a message for a socket that has `buffered` bytes not yet
 * written. A droppable message is dropped once the buffer is over half the
 * bound, which keeps the other half for answers; a message that must arrive
 * but would take the buffer past the bound means the player is not reading:
 * its socket is closed rather than letting server memory grow.
 */
export function sendVerdict(buffered: number, messageBytes: number, droppable: boolean, maxBytes: number): SendVerdict {
  if (droppable) return buffered + messageBytes > maxBytes / 2 ? 'drop' : 'send';
  return buffered + messageBytes > maxBytes ? 'close' : 'send';
}
