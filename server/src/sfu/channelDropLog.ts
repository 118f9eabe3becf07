/**
 * Says in the log when the channel writers drop packets (a worker fell
 * behind), at most once per interval with the counts since the last line;
 * the running totals are in the metrics (pels_channel_packets_dropped_total).
 */
import { COLORS } from '@pels/shared/pels/color';
import type { Logger } from '../log';
import type { ChannelDrops } from './packetChannel';

const DROP_LOG_INTERVAL_MS = 10_000;

/** Returns the function that stops it. */
export function logChannelDrops(drops: Readonly<ChannelDrops>, log: Logger, intervalMs = DROP_LOG_INTERVAL_MS): () => void {
  let last = { ...drops };
  const timer = setInterval(() => {
    const now = { ...drops };
    const since = Object.fromEntries(COLORS.map((c) => [c, now[c] - last[c]]));
    last = now;
    if (COLORS.some((c) => since[c]! > 0)) log.warn({ dropped: since, seconds: intervalMs / 1000 }, "packets dropped: a media worker's channel backlog was over the cap");
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
