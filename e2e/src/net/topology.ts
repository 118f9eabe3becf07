import { run } from './run';

/**
 * The testbed's hosts: the server in one network namespace, the viewers
 * (Chromium) in another, joined by a veth pair whose server-side end carries
 * the bottleneck. A second veth joins the server namespace to this one for
 * control traffic (API, router feedback) that must not cross the bottleneck.
 * Names carry this process's pid, so a later run can tell leftovers of a
 * crashed run (pid gone) from a run still going.
 */
export interface Topology {
  serverNs: string;
  clientNs: string;
  /** Server-side end of the bottleneck link (the router's egress). */
  bottleneckDev: string;
  serverIp: string;
  clientIp: string;
  /** The server's address on the control link, reachable from this namespace. */
  serverControlIp: string;
  destroy(): Promise<void>;
}

const PREFIX = 'pels';
/** The testbed's namespaces: the server's and the viewers' (topology.ts), a LAN's switch and hosts (lanTopology.ts). */
const NAME = /^pels(\d+)(srv|cli|lan|h\d+)$/;

export class NamespaceUnavailableError extends Error {
  override name = 'NamespaceUnavailableError';
}

/** Why namespaces cannot be made here, or null when they can. */
export async function namespaceSupport(): Promise<string | null> {
  if (process.getuid?.() !== 0) return 'network namespaces need root';
  try {
    await run('ip', ['netns', 'list']);
    await run('tc', ['-V']);
    return null;
  } catch (err) {
    return `ip/tc unavailable: ${(err as Error).message}`;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The namespaces on the machine but those of other runs still going (what this run and dead runs leave). */
export async function namespacesOfThisRun(): Promise<string[]> {
  return (await namespaceNames()).filter((name) => {
    const m = NAME.exec(name);
    return !m || Number(m[1]) === process.pid || !alive(Number(m[1]));
  });
}

/** Every network namespace on the machine, by name. */
async function namespaceNames(): Promise<string[]> {
  const out = await run('ip', ['netns', 'list']);
  return out
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter(Boolean);
}

/** Removes namespaces (and with them their veths, qdiscs and processes' sockets) left by runs that died. */
export async function removeStaleNamespaces(): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await namespaceNames()) {
    const m = NAME.exec(name);
    if (m && !alive(Number(m[1]))) {
      await killNamespaceProcesses(name);
      await run('ip', ['netns', 'del', name]).catch(() => {});
      removed.push(name);
    }
  }
  return removed;
}

export async function killNamespaceProcesses(ns: string): Promise<void> {
  const pids = (await run('ip', ['netns', 'pids', ns]).catch(() => '')).split('\n').filter(Boolean);
  for (const pid of pids) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

export async function createTopology(): Promise<Topology> {
  const why = await namespaceSupport();
  if (why) throw new NamespaceUnavailableError(why);
  await removeStaleNamespaces();
  const id = `${PREFIX}${process.pid}`;
  const serverNs = `${id}srv`;
  const clientNs = `${id}cli`;
  const bottleneckDev = `pv${process.pid}s`.slice(0, 15);
  const clientDev = `pv${process.pid}c`.slice(0, 15);
  const ctlHost = `pv${process.pid}h`.slice(0, 15);
  const ctlSrv = `pv${process.pid}m`.slice(0, 15);
  // The control link lives in this namespace's routing table too: one subnet per run.
  const ctlSubnet = (process.pid % 250) + 1;
  const topo: Topology = {
    serverNs,
    clientNs,
    bottleneckDev,
    serverIp: '10.201.0.1',
    clientIp: '10.201.0.2',
    serverControlIp: `10.202.${ctlSubnet}.2`,
    async destroy() {
      for (const ns of [serverNs, clientNs]) {
        await killNamespaceProcesses(ns);
        await run('ip', ['netns', 'del', ns]).catch(() => {});
      }
      // The control veth's host end goes with its peer; delete it in case the namespace was never made.
      await run('ip', ['link', 'del', ctlHost]).catch(() => {});
    },
  };
  try {
    await run('ip', ['netns', 'add', serverNs]);
    await run('ip', ['netns', 'add', clientNs]);
    for (const ns of [serverNs, clientNs]) await run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    await run('ip', ['link', 'add', bottleneckDev, 'netns', serverNs, 'type', 'veth', 'peer', 'name', clientDev, 'netns', clientNs]);
    await run('ip', ['-n', serverNs, 'addr', 'add', `${topo.serverIp}/24`, 'dev', bottleneckDev]);
    await run('ip', ['-n', clientNs, 'addr', 'add', `${topo.clientIp}/24`, 'dev', clientDev]);
    // No IPv6 link-local addresses: their duplicate-address detection ends a second or two after the link comes up,
    // and Chromium, seeing an address change, aborts its navigation with ERR_NETWORK_CHANGED. The testbed is IPv4.
    await run('ip', ['-n', serverNs, 'link', 'set', bottleneckDev, 'addrgenmode', 'none', 'up']);
    await run('ip', ['-n', clientNs, 'link', 'set', clientDev, 'addrgenmode', 'none', 'up']);
    // Chromium gathers ICE candidates only with a default route.
    await run('ip', ['-n', clientNs, 'route', 'add', 'default', 'via', topo.serverIp]);
    await run('ip', ['link', 'add', ctlHost, 'type', 'veth', 'peer', 'name', ctlSrv, 'netns', serverNs]);
    await run('ip', ['addr', 'add', `10.202.${ctlSubnet}.1/24`, 'dev', ctlHost]);
    await run('ip', ['-n', serverNs, 'addr', 'add', `${topo.serverControlIp}/24`, 'dev', ctlSrv]);
    await run('ip', ['link', 'set', ctlHost, 'addrgenmode', 'none', 'up']);
    await run('ip', ['-n', serverNs, 'link', 'set', ctlSrv, 'addrgenmode', 'none', 'up']);
    return topo;
  } catch (err) {
    await topo.destroy();
    throw err;
  }
}
