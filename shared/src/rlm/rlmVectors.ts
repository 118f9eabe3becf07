/**
 * Test vectors of the RLM state machine, shared with the synthetic receivers'
 * Go port (receivers/rlm.go): each case is a receiver's parameters, its random
 * draws (used in turn, from the start again when they run out) and a list of
 * inputs, with the machine's state at checkpoints. Both test suites replay the
 * cases, so the two implementations cannot drift apart silently. Written by
 * `npx tsx shared/src/rlm/rlmVectors.ts` from this implementation: run it
 * only when a change of the rules is meant, and port the change to Go.
 */
import { writeFileSync } from 'node:fs';
import { mulberry32 } from '../pels/syntheticStream';
import { RLM_DEFAULTS, RlmReceiver, type RlmParams } from './rlm';

/** One input: [op, atMs, ...args]. t tick; p packet (layer, seq); r report (layer, received, lost); a announce (layer). */
export type RlmEvent = ['t', number] | ['p', number, number, number] | ['r', number, number, number, number] | ['a', number, number];

export interface RlmCheck {
  /** After this many inputs. */
  after: number;
  state: string;
  subscription: number;
  nextWakeMs: number;
  joinTimerMs: number[];
  detectMs: number;
  detectVarMs: number;
  adds: number;
  drops: number;
  packetsReceived: number;
  packetsLost: number;
}

export interface RlmCase {
  name: string;
  params: RlmParams;
  startMs: number;
  random: number[];
  events: RlmEvent[];
  checks: RlmCheck[];
}

export const VECTORS_FILE = new URL('./rlmVectors.json', import.meta.url);

/** Cycles through fixed draws, as the Go test does. */
export function fixedRandom(draws: readonly number[]): () => number {
  let i = 0;
  return () => draws[i++ % draws.length]!;
}

export function applyEvent(r: RlmReceiver, e: RlmEvent): void {
  if (e[0] === 't') r.tick(e[1]);
  else if (e[0] === 'p') r.onPacket(e[2], e[3], e[1]);
  else if (e[0] === 'r') r.onReport(e[2], e[3], e[4], e[1]);
  else r.onAnnounce(e[2], e[1]);
}

export function checkOf(r: RlmReceiver, after: number): RlmCheck {
  return {
    after,
    state: r.state,
    subscription: r.subscription,
    nextWakeMs: r.nextWakeMs,
    joinTimerMs: r.joinTimerMs.slice(1, r.joinTimerMs.length - 1),
    detectMs: r.detectMs,
    detectVarMs: r.detectVarMs,
    adds: r.adds,
    drops: r.drops,
    packetsReceived: r.packetsReceived,
    packetsLost: r.packetsLost,
  };
}

/** Runs `r` through a path, recording its inputs, with a checkpoint at every change of state or subscription and every 100 inputs. */
function record(name: string, params: RlmParams, path: (r: RlmReceiver, put: (e: RlmEvent) => void) => void): RlmCase {
  const random = Array.from({ length: 64 }, mulberry32(name.length * 7919));
  const r = new RlmReceiver(params, fixedRandom(random), 0);
  const events: RlmEvent[] = [];
  const checks: RlmCheck[] = [];
  let last = '';
  path(r, (e) => {
    applyEvent(r, e);
    events.push(e);
    const key = `${r.state}/${r.subscription}`;
    if (key !== last || events.length % 100 === 0) checks.push(checkOf(r, events.length));
    last = key;
  });
  checks.push(checkOf(r, events.length));
  return { name, params, startMs: 0, random, events, checks };
}

/** What the path does at a time: layers above `capacity` lose `lossAbove` of their packets, every layer `lossAll`. */
interface PathAt {
  capacity: number;
  lossAbove: number;
  lossAll: number;
}

/** Per-packet input: each subscribed layer sends `pps` packets a second over the path `at` describes. */
function packetPath(untilMs: number, at: (tMs: number) => PathAt, pps: number, seed: number) {
  return (r: RlmReceiver, put: (e: RlmEvent) => void) => {
    const random = mulberry32(seed);
    const seq = new Array<number>(r.joinTimerMs.length).fill(0);
    for (let t = 0; t < untilMs; t += 1000 / pps) {
      while (r.nextWakeMs <= t) put(['t', r.nextWakeMs]);
      const path = at(t);
      for (let layer = 1; layer <= r.subscription; layer++) {
        const s = seq[layer]!++;
        if (r.subscription > path.capacity && random() < path.lossAbove) continue;
        if (random() < path.lossAll) continue;
        put(['p', t, layer, s]);
      }
    }
  };
}

export function makeVectors(): RlmCase[] {
  return [
    record('climbs to the path and backs off above it', { ...RLM_DEFAULTS, layers: 4 }, packetPath(120_000, () => ({ capacity: 3, lossAbove: 0.4, lossAll: 0 }), 10, 2)),
    record('a measurement over W packets drops the top layer', { ...RLM_DEFAULTS, layers: 3, windowPackets: 4 }, packetPath(90_000, () => ({ capacity: 1, lossAbove: 0.5, lossAll: 0 }), 20, 5)),
    record(
      'a path that widens, with light loss on every layer: hysteresis, measurements that time out, relaxed timers',
      { ...RLM_DEFAULTS, layers: 4 },
      packetPath(300_000, (t) => (t < 60_000 ? { capacity: 2, lossAbove: 0.3, lossAll: 0 } : t < 160_000 ? { capacity: 3, lossAbove: 0.3, lossAll: 0.03 } : { capacity: 4, lossAbove: 0, lossAll: 0.005 }), 8, 9),
    ),
    record('counter reports, and experiments of other receivers', { ...RLM_DEFAULTS, layers: 3 }, (r, put) => {
      const random = mulberry32(11);
      for (let t = 0; t < 120_000; t += 250) {
        while (r.nextWakeMs <= t) put(['t', r.nextWakeMs]);
        if (t % 7000 === 0) put(['a', t, 1 + (t / 7000) % 3]);
        for (let layer = 1; layer <= r.subscription; layer++) {
          const lost = r.subscription === 3 && random() < 0.5 ? 2 : 0;
          put(['r', t, layer, 5 - lost, lost]);
        }
      }
    }),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(VECTORS_FILE, `${JSON.stringify({ cases: makeVectors() })}\n`);
}
