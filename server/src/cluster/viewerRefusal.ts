import { WebSocketServer } from 'ws';
import type { UpgradeHandler } from '../http/httpServer';

/** Fits a WebSocket close reason (at most 123 bytes): the player shows it as the reason its connection ended. */
export const ORIGIN_REFUSAL = 'this server is an origin: it serves no viewers, open the player on one of its edges';

/**
 * ROLE=origin: a player's socket is opened and closed at once with the reason (1008, policy), so the player
 * says why instead of failing to connect; nothing is kept for it.
 */
export function refuseViewers(): { handler: UpgradeHandler; close: () => void } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 });
  return {
    handler: (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => ws.close(1008, ORIGIN_REFUSAL)),
    close: () => {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
    },
  };
}
