import { run } from './run';
import { killNamespaceProcesses, namespaceSupport, NamespaceUnavailableError, removeStaleNamespaces, type Topology } from './topology';

/**
 * A LAN for a cluster run: hosts (an origin, its edges), each in a network namespace of its own with an address
 * of its own, and the viewers' namespace, all on one switch (a bridge in a namespace of its own). The switch's port
 * to the viewers carries the bottleneck, so every edge's viewers share it as a single server's do; this namespace
 * joins the switch too (control traffic: API, Redis checks), without crossing the bottleneck.
 *
 * As a Topology: `serverNs` and `bottleneckDev` are the switch and its port to the viewers (where the bottleneck
 * is read and changed), `serverIp` and `serverControlIp` the first host's address (the cluster's front).
 */
export interface LanTopology extends Topology {
  /** Each host's namespace and address, in order. */
  hosts: { ns: string; ip: string }[];
}

/** `hosts` namespaces besides the viewers' and the switch's; names carry this process's pid, as topology.ts's. */
export async function createLanTopology(hosts: number): Promise<LanTopology> {
  const why = await namespaceSupport();
  if (why) throw new NamespaceUnavailableError(why);
  await removeStaleNamespaces();
  const id = `pels${process.pid}`;
  const lanNs = `${id}lan`;
  const clientNs = `${id}cli`;
  // One subnet per run: this namespace routes to it.
  const subnet = `10.203.${(process.pid % 250) + 1}`;
  const rootDev = `pv${process.pid}l`.slice(0, 15);
  const hostList = Array.from({ length: hosts }, (_, i) => ({ ns: `${id}h${i}`, ip: `${subnet}.${10 + i}` }));
  const namespaces = [lanNs, clientNs, ...hostList.map((h) => h.ns)];
  const topo: LanTopology = {
    serverNs: lanNs,
    clientNs,
    bottleneckDev: 'pcli',
    serverIp: hostList[0]!.ip,
    clientIp: `${subnet}.2`,
    serverControlIp: hostList[0]!.ip,
    hosts: hostList,
    async destroy() {
      for (const ns of namespaces) {
        await killNamespaceProcesses(ns);
        await run('ip', ['netns', 'del', ns]).catch(() => {});
      }
      await run('ip', ['link', 'del', rootDev]).catch(() => {});
    },
  };
  try {
    for (const ns of namespaces) {
      await run('ip', ['netns', 'add', ns]);
      await run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    }
    await run('ip', ['-n', lanNs, 'link', 'add', 'br0', 'type', 'bridge']);
    await run('ip', ['-n', lanNs, 'link', 'set', 'br0', 'addrgenmode', 'none', 'up']);
    /** A host's cable to the switch: `dev` in its namespace (null: this one), `port` on the switch. */
    const plug = async (ns: string | null, dev: string, port: string, ip: string) => {
      await run('ip', ['link', 'add', dev, ...(ns ? ['netns', ns] : []), 'type', 'veth', 'peer', 'name', port, 'netns', lanNs]);
      await run('ip', ['-n', lanNs, 'link', 'set', port, 'master', 'br0', 'addrgenmode', 'none', 'up']);
      const inNs = ns ? ['-n', ns] : [];
      await run('ip', [...inNs, 'addr', 'add', `${ip}/24`, 'dev', dev]);
      // No IPv6 link-local addresses (Chromium aborts a navigation on an address change: topology.ts).
      await run('ip', [...inNs, 'link', 'set', dev, 'addrgenmode', 'none', 'up']);
    };
    await plug(clientNs, 'lan0', 'pcli', topo.clientIp);
    for (const [i, h] of hostList.entries()) await plug(h.ns, 'lan0', `ph${i}`, h.ip);
    await plug(null, rootDev, 'proot', `${subnet}.254`);
    // Chromium gathers ICE candidates only with a default route.
    await run('ip', ['-n', clientNs, 'route', 'add', 'default', 'via', `${subnet}.254`]);
    return topo;
  } catch (err) {
    await topo.destroy();
    throw err;
  }
}
