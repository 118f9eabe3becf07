/** The testbed's command line: its flags, checked, as TestbedOptions. */
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { FLOW_MODES, type FlowModeName } from '@pels/shared/protocol/api';
import { parseRateControllerName, RATE_CONTROLLER_NAMES, type RateControllerName } from '@pels/shared/rate/names';
import { parseBottleneckKind, bottleneckKindOf, type BottleneckKind } from '../net/pelsBottleneck';
import { orderSteps, parseCapacityStep, type CapacityStep } from './capacitySteps';
import { TESTBED_DEFAULTS, type IngestProtocol, type TestbedOptions } from './testbed';
import { userPath } from '../userPath';

export const USAGE = `usage: npm run testbed -- [--viewers N] [--synthetic N] [--seconds S] [--capacity-kbps C] [--loss PCT]
       [--mode pels|best-effort|nack] [--router pels|fifo] [--feedback rtcp|router] [--router-interval-ms T]
       [--queue-packets N] [--green-queue-bytes B] [--red-queue-packets N] [--internet-share F] [--source FILE|URL|lavfi:GRAPH] [--out FILE.csv] [--json]
       [--tcp N] [--tcp-bytes B] [--tcp-seconds S] [--tcp-start S] [--tcp-queue internet|shared] [--tcp-cc reno|cubic|...] [--upta Q]
       [--synthetic N]  synthetic viewers (receivers/: real WebRTC, no decoding) in the viewers' namespace, instead of or beside --viewers
       [--cc NAME[,NAME...]]  each viewer's rate controller, cycled over the viewers (${RATE_CONTROLLER_NAMES.join(', ')})
       [--capacity-step SECONDS:KBPS]  the bottleneck's capacity from then on (repeatable; needs --capacity-kbps)
       [--router pels|fifo]  the bottleneck's queues: PELS (one per color) or one drop-tail FIFO; default pels for --mode pels, fifo otherwise
       [--screenshots DIR]  each viewer's page and the dashboard at the end, as PNG files in DIR
       [--capture FILE.pcap]  the UDP the viewers' host receives (tcpdump), and the JSON's capture: each RTP stream's loss
                        by sequence number against what a libwebrtc receiver reports of it (needs --capacity-kbps)
       [--ingest rtmp|srt|whip]  the viewers watch a live stream: FFmpeg publishes --source (or a test picture and tone) to
                        it over RTMP or SRT in real time, or Chromium a moving picture and a tone over WHIP (H.264 + Opus),
                        stamping each frame's capture time (latency from publish to display)
       [--edges N]  a cluster instead of one server: Redis, an origin and N edges, each a host of its own on a LAN (namespaces);
                        the viewers join through the origin (the front), which places each on an edge
       [--kill-edge SECONDS]  SIGKILL the edge with the most viewers that far into the run; its viewers go back through the front
                        (needs --edges 2 or more; the JSON's rejoin: the synthetic viewers' times back)`;

export class UsageError extends Error {}

const isFlowMode = (s: string): s is FlowModeName => (FLOW_MODES as readonly string[]).includes(s);

function num(name: string, raw: string | undefined, fallback: number, min: number, max: number, integer = false): number {
  if (raw === undefined) return fallback;
  const v = Number(raw);
  if (!Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) throw new UsageError(`--${name} must be ${integer ? 'an integer' : 'a number'} in [${min}, ${max}]; got "${raw}"`);
  return v;
}

/** The command line's options; `help` when asked for the usage. Throws a UsageError on a bad flag. */
export function parseTestbedArgs(argv: string[]): (TestbedOptions & { json: boolean }) | 'help' {
  const { values } = parseFlags(argv);
  if (values.help) return 'help';
  const d = TESTBED_DEFAULTS;
  const mode = values.mode ?? d.mode;
  if (!isFlowMode(mode)) throw new UsageError(`--mode must be one of ${FLOW_MODES.join(', ')}; got "${mode}"`);
  const feedback = values.feedback ?? d.feedback;
  if (feedback !== 'rtcp' && feedback !== 'router') throw new UsageError(`--feedback must be rtcp or router; got "${feedback}"`);
  const capacityKbps = values['capacity-kbps'] === undefined ? undefined : num('capacity-kbps', values['capacity-kbps'], 0, 64, 1_000_000);
  if (feedback === 'router' && capacityKbps === undefined) throw new UsageError('--feedback router needs a bottleneck: give --capacity-kbps');
  const tcpFlows = num('tcp', values.tcp, 0, 0, 16, true);
  const tcpQueue = values['tcp-queue'] ?? 'internet';
  if (tcpQueue !== 'internet' && tcpQueue !== 'shared') throw new UsageError(`--tcp-queue must be internet or shared; got "${tcpQueue}"`);
  if (tcpFlows > 0 && capacityKbps === undefined) throw new UsageError('--tcp needs a bottleneck: give --capacity-kbps');
  const router = routerOption(values.router, capacityKbps);
  if (tcpQueue === 'shared' && (router ?? bottleneckKindOf(mode)) === 'pels') throw new UsageError('--tcp-queue shared needs the FIFO router (--router fifo, or --mode best-effort or nack): PELS keeps one queue per color');
  const cc = values['tcp-cc'];
  if (cc !== undefined && !/^[a-z0-9_]{1,16}$/.test(cc)) throw new UsageError(`--tcp-cc must name a congestion control (e.g. reno, cubic); got "${cc}"`);
  if (values.upta !== undefined && capacityKbps === undefined) throw new UsageError('--upta needs a bottleneck: give --capacity-kbps');
  // The capture is taken in the viewers' namespace, which only a bottleneck makes.
  if (values.capture !== undefined && capacityKbps === undefined) throw new UsageError('--capture needs a bottleneck: give --capacity-kbps');
  const lossPct = num('loss', values.loss, d.lossPct, 0, 99.9);
  // The router applies random loss: without one, --loss would measure nothing.
  if (lossPct > 0 && capacityKbps === undefined) throw new UsageError('--loss needs a bottleneck: give --capacity-kbps');
  const seconds = num('seconds', values.seconds, d.seconds, 4, 3600, true);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const stepArgs = values['capacity-step'] ?? [];
  if (stepArgs.length > 0 && capacityKbps === undefined) throw new UsageError('--capacity-step changes the bottleneck: give --capacity-kbps');
  let controllers: RateControllerName[];
  let capacitySteps: CapacityStep[];
  try {
    controllers = values.cc === undefined ? [] : values.cc.split(',').map((n) => parseRateControllerName(n.trim()));
    capacitySteps = orderSteps(stepArgs.map((s) => parseCapacityStep(s, seconds)));
  } catch (err) {
    throw new UsageError(`${values.cc !== undefined && /rate controller/.test((err as Error).message) ? '--cc: ' : ''}${(err as Error).message}`);
  }
  const synthetic = num('synthetic', values.synthetic, d.synthetic, 0, 500, true);
  const edges = num('edges', values.edges, d.edges, 0, 8, true);
  const killEdgeS = values['kill-edge'] === undefined ? undefined : num('kill-edge', values['kill-edge'], 0, 1, seconds - 1, true);
  if (killEdgeS !== undefined && edges < 2) throw new UsageError('--kill-edge needs an edge for its viewers to go to: give --edges 2 or more');
  if (edges > 0) {
    // What the cluster's run does not carry yet: each of these reaches one server.
    const alone = Object.entries({ '--tcp': tcpFlows > 0, '--upta': values.upta !== undefined, '--ingest': values.ingest !== undefined, '--feedback router': feedback === 'router' }).find(([, given]) => given);
    if (alone) throw new UsageError(`${alone[0]} does not go with --edges yet (it runs against one server)`);
  }
  // Synthetic viewers alone: no Chromium unless asked for.
  const viewers = num('viewers', values.viewers, synthetic > 0 ? 0 : d.viewers, synthetic > 0 ? 0 : 1, 32, true);
  return {
    viewers,
    synthetic,
    edges,
    ...(killEdgeS === undefined ? {} : { killEdgeS }),
    seconds,
    controllers,
    capacitySteps,
    mode,
    ...(router === undefined ? {} : { router }),
    feedback,
    capacityKbps,
    lossPct,
    routerIntervalMs: num('router-interval-ms', values['router-interval-ms'], d.routerIntervalMs, 10, 5000, true),
    queuePackets: values['queue-packets'] === undefined ? undefined : num('queue-packets', values['queue-packets'], 0, 2, 10000, true),
    greenQueueBytes: values['green-queue-bytes'] === undefined ? undefined : num('green-queue-bytes', values['green-queue-bytes'], 0, 1500, 100_000_000, true),
    redQueuePackets: num('red-queue-packets', values['red-queue-packets'], d.redQueuePackets, 2, 10000, true),
    internetShare: num('internet-share', values['internet-share'], d.internetShare, 0.01, 0.99),
    source: values.source,
    timeseriesFile: values.out !== undefined ? userPath(values.out) : fileURLToPath(new URL(`../../out/testbed-${stamp}.csv`, import.meta.url)),
    json: values.json,
    ...(values.screenshots === undefined ? {} : { screenshotDir: userPath(values.screenshots) }),
    ...(values.capture === undefined ? {} : { captureFile: userPath(values.capture) }),
    ...(values.ingest === undefined ? {} : { ingest: ingestOption(values.ingest) }),
    ...(values.upta === undefined ? {} : { upta: num('upta', values.upta, 0, 0.01, 0.99) }),
    ...(tcpFlows > 0
      ? {
          tcp: {
            flows: tcpFlows,
            bytes: values['tcp-bytes'] === undefined ? undefined : num('tcp-bytes', values['tcp-bytes'], 0, 1, 1e12, true),
            seconds: values['tcp-seconds'] === undefined ? undefined : num('tcp-seconds', values['tcp-seconds'], 0, 1, 3600),
            startS: num('tcp-start', values['tcp-start'], 0, 0, seconds - 1, true),
            queue: tcpQueue,
            congestionControl: cc,
          },
        }
      : {}),
  };
}

/** --router as given (undefined: the flow mode's own); it needs a bottleneck to route. */
function routerOption(raw: string | undefined, capacityKbps: number | undefined): BottleneckKind | undefined {
  if (raw === undefined) return undefined;
  if (capacityKbps === undefined) throw new UsageError('--router needs a bottleneck: give --capacity-kbps');
  try {
    return parseBottleneckKind(raw);
  } catch (err) {
    throw new UsageError(`--${(err as Error).message}`);
  }
}

/** --ingest: the protocols the testbed publishes over. */
export function ingestOption(raw: string): IngestProtocol {
  if (raw === 'rtmp' || raw === 'srt' || raw === 'whip') return raw;
  throw new UsageError(`--ingest must be rtmp, srt or whip; got "${raw}"`);
}

/** node:util's parseArgs over the testbed's flags; an unknown or malformed flag is a usage error. */
function parseFlags(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: {
        viewers: { type: 'string' },
        synthetic: { type: 'string' },
        seconds: { type: 'string' },
        'capacity-kbps': { type: 'string' },
        loss: { type: 'string' },
        mode: { type: 'string' },
        router: { type: 'string' },
        feedback: { type: 'string' },
        'router-interval-ms': { type: 'string' },
        'queue-packets': { type: 'string' },
        'green-queue-bytes': { type: 'string' },
        'red-queue-packets': { type: 'string' },
        'internet-share': { type: 'string' },
        cc: { type: 'string' },
        'capacity-step': { type: 'string', multiple: true },
        source: { type: 'string' },
        out: { type: 'string' },
        tcp: { type: 'string' },
        'tcp-bytes': { type: 'string' },
        'tcp-seconds': { type: 'string' },
        'tcp-start': { type: 'string' },
        'tcp-queue': { type: 'string' },
        'tcp-cc': { type: 'string' },
        upta: { type: 'string' },
        screenshots: { type: 'string' },
        capture: { type: 'string' },
        ingest: { type: 'string' },
        edges: { type: 'string' },
        'kill-edge': { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
