/**
 * The testbed's topology: the namespaces and their links, the PELS bottleneck
 * on the server's side, the agents that read it (router feedback, useless-packet
 * avoidance) and the capacity steps that move it during a run.
 */
import { applyBottleneck, changeCapacity, defaultGreenQueueBytes, defaultQueuePackets, BOTTLENECK_DEFAULTS, type BottleneckKind } from '../net/pelsBottleneck';
import { BottleneckAgent } from '../net/bottleneckAgent';
import { UptaAgent } from '../net/uptaAgent';
import { createLanTopology } from '../net/lanTopology';
import { createTopology, type Topology } from '../net/topology';
import { TCP_PORT } from '../tcp/tcpFlows';
import type { CapacityStep } from './capacitySteps';
import { round } from './metrics';
import type { Resources } from './resources';
import type { Progress, TestbedOptions } from './testbed';

/**
 * The namespaces and the bottleneck the options ask for; null: none needed (viewers on loopback).
 * Without root every run needing a bottleneck, TCP flows or a cluster fails here, before anything starts.
 * With --edges: a LAN of the origin's and each edge's hosts and the viewers', the bottleneck on the switch's port to the viewers.
 */
export async function createNetwork(o: TestbedOptions, bottleneckKind: BottleneckKind, res: Resources, progress: Progress): Promise<Topology | null> {
  if (o.edges > 0 || o.capacityKbps !== undefined || o.lossPct > 0 || o.feedback === 'router' || o.tcp || process.getuid?.() === 0) {
    let topo: Topology;
    if (o.edges > 0) {
      const lan = await createLanTopology(o.edges + 1);
      topo = lan;
      res.add(() => lan.destroy());
      progress(`LAN ${lan.serverNs}: hosts ${lan.hosts.map((h) => `${h.ns} ${h.ip}`).join(', ')}, viewers ${lan.clientNs} ${lan.clientIp}`);
    } else {
      const pair = await createTopology();
      topo = pair;
      res.add(() => pair.destroy());
      progress(`namespaces ${pair.serverNs} (server ${pair.serverIp}) and ${pair.clientNs} (viewers ${pair.clientIp})`);
    }
    if (o.capacityKbps !== undefined) {
      await applyBottleneck(topo.serverNs, topo.bottleneckDev, {
        capacityKbps: o.capacityKbps,
        lossPct: o.lossPct,
        kind: bottleneckKind,
        internetShare: o.internetShare,
        queuePackets: o.queuePackets ?? defaultQueuePackets(o.capacityKbps),
        greenQueueBytes: o.greenQueueBytes ?? defaultGreenQueueBytes(o.capacityKbps),
        redQueuePackets: o.redQueuePackets,
        internetQueuePackets: BOTTLENECK_DEFAULTS.internetQueuePackets,
        ...(o.tcp?.queue === 'shared' ? { sharedTcpPort: TCP_PORT } : {}),
        ...(o.upta !== undefined ? { uptaClass: true } : {}),
      });
      progress(`router: ${o.capacityKbps} kb/s, ${bottleneckKind === 'pels' ? 'PELS priority queues' : 'one FIFO'}, loss ${o.lossPct}%`);
    }
    return topo;
  }
  if (o.tcp) throw new Error('TCP flows need network namespaces (root)');
  progress('not root: viewers on loopback, no bottleneck');
  return null;
}

/** The bottleneck's feedback agent, posting to the server's router-feedback API with the run's router token; null: no router feedback. */
export async function startRouterAgent(o: TestbedOptions, bottleneckKind: BottleneckKind, topo: Topology | null, serverUrl: string, routerToken: string, res: Resources): Promise<BottleneckAgent | null> {
  if (!topo || o.capacityKbps === undefined || o.feedback !== 'router') return null;
  const agent = new BottleneckAgent({
    ns: topo.serverNs,
    dev: topo.bottleneckDev,
    intervalMs: o.routerIntervalMs,
    linkKbps: o.capacityKbps,
    internetShare: o.internetShare,
    kind: bottleneckKind,
    routerId: topo.serverNs,
    deliver: async (fb) => {
      const r = await fetch(`${serverUrl}/api/router-feedback`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${routerToken}` }, body: JSON.stringify(fb) });
      if (!r.ok) throw new Error(`router feedback rejected: ${r.status}`);
    },
  });
  await agent.start();
  res.add(async () => agent.stop());
  return agent;
}

/** Useless-packet avoidance at the bottleneck; null: not asked for, or no bottleneck. */
export async function startUptaAgent(o: TestbedOptions, topo: Topology | null, res: Resources, progress: Progress): Promise<UptaAgent | null> {
  if (!topo || o.capacityKbps === undefined || o.upta === undefined) return null;
  const upta = new UptaAgent({ ns: topo.serverNs, dev: topo.bottleneckDev, linkKbps: o.capacityKbps, threshold: o.upta, intervalMs: o.routerIntervalMs, tcpPort: TCP_PORT });
  await upta.start();
  res.add(() => upta.stop());
  progress(`useless-packet avoidance at the router: video loss threshold ${o.upta}`);
  return upta;
}

export interface AppliedStep extends CapacityStep {
  appliedAtS: number | null;
  error?: string;
}

/**
 * Moves the bottleneck to each step's capacity at its time (the router's
 * classes change in place; the router agent measures against the new rate).
 */
export function startCapacitySteps(o: TestbedOptions, bottleneckKind: BottleneckKind, topo: Topology | null, agent: BottleneckAgent | null, t0: number, progress: Progress): { applied(): Promise<AppliedStep[]>; cancel(): void } {
  const timers: NodeJS.Timeout[] = [];
  const done: Promise<AppliedStep>[] = [];
  if (!topo || o.capacityKbps === undefined) return { applied: async () => [], cancel: () => {} };
  for (const step of o.capacitySteps) {
    done.push(
      new Promise((resolve) => {
        timers.push(
          setTimeout(() => {
            changeCapacity(topo.serverNs, topo.bottleneckDev, {
              capacityKbps: step.kbps,
              internetShare: o.internetShare,
              kind: bottleneckKind,
              // A queue sized by default holds its time of the link (green 1 s, yellow 500 ms): it keeps doing so at the new capacity.
              ...(o.queuePackets === undefined ? { queuePackets: defaultQueuePackets(step.kbps) } : {}),
              ...(o.greenQueueBytes === undefined ? { greenQueueBytes: defaultGreenQueueBytes(step.kbps) } : {}),
            }).then(
              () => {
                agent?.setLinkKbps(step.kbps);
                progress(`router: ${step.kbps} kb/s from ${step.atS} s`);
                resolve({ ...step, appliedAtS: round((Date.now() - t0) / 1000, 2) });
              },
              (err: unknown) => resolve({ ...step, appliedAtS: null, error: err instanceof Error ? err.message : String(err) }),
            );
          }, Math.max(0, t0 + step.atS * 1000 - Date.now())),
        );
      }),
    );
  }
  return { applied: () => Promise.all(done), cancel: () => timers.forEach(clearTimeout) };
}
