/**
 * The player's sound concealment split by cause, pure. The receiver conceals
 * (makes up samples) for packets lost on the wire, and also when the sound
 * stops coming: a server or ingest short of CPU that sent less than real time
 * for a while (a starved machine, not the network). The receiver's counters do
 * not tell the two apart; the sequence numbers do: over an interval between two
 * readings the packets the server sent (received plus lost) fall short of the
 * interval's duration when the sound stopped coming, and exceed it when the
 * ingest catches up after stopping (the stall and its burst in one interval).
 */
import type { AudioReceiveStats } from '@pels/shared/protocol/playerHook';
import { round } from './metrics';

/** The server's Opus packet time (its encode, OPUS_ENCODE_ARGS: `-frame_duration 20`), as the default stream's sound has it. */
export const SOUND_PACKET_MS = 20;
/** An interval whose packets cover its duration to within this share came at real time. */
const REAL_TIME_SHARE = 0.1;

export interface FedConcealment {
  /** Seconds over which the sound came at real time, and those over which it did not. */
  fedSeconds: number;
  starvedSeconds: number;
  /** Concealed samples over the samples received in the fed intervals alone; null when none was fed. */
  concealedRatio: number | null;
}

/**
 * Concealment over the intervals between successive readings in which the
 * sound came at real time (the interval's packets, at `packetMs` each, to
 * within REAL_TIME_SHARE). A stall's concealment that spills into an interval
 * fed at real time still counts: the split errs towards the wire.
 */
export function fedConcealment(readings: readonly AudioReceiveStats[], packetMs = SOUND_PACKET_MS): FedConcealment {
  let fedMs = 0;
  let starvedMs = 0;
  let concealed = 0;
  let samples = 0;
  for (let i = 1; i < readings.length; i++) {
    const a = readings[i - 1]!;
    const b = readings[i]!;
    const ms = b.atMs - a.atMs;
    // The same report twice (stats not refreshed): no interval.
    if (!(ms > 0)) continue;
    const sent = b.packetsReceived + b.packetsLost - (a.packetsReceived + a.packetsLost);
    if (Math.abs(sent - ms / packetMs) <= (REAL_TIME_SHARE * ms) / packetMs) {
      fedMs += ms;
      concealed += b.concealedSamples - a.concealedSamples;
      samples += b.totalSamplesReceived - a.totalSamplesReceived;
    } else {
      starvedMs += ms;
    }
  }
  return { fedSeconds: Math.round(fedMs / 100) / 10, starvedSeconds: Math.round(starvedMs / 100) / 10, concealedRatio: samples > 0 ? round(concealed / samples, 4) : null };
}
