/**
 * The server's DSCP marking as nftables holds it: a table per server process,
 * `inet pels_<port>_pid<pid>`, whose map `ssrc_dscp` sends each marked SSRC to
 * chain `dscp_<n>`, or drops it (a retransmission gate closed; docs/architecture.md, "A
 * viewer's flow in detail"). Needs root.
 */
import { execFileSync } from 'node:child_process';

export interface DscpTable {
  name: string;
  /** SSRC -> DSCP, or 'drop'. */
  marks: Map<number, number | 'drop'>;
}

type NftDoc = { nftables: { table?: { family: string; name: string }; map?: { elem?: [number, { goto?: { target: string }; drop?: null }][] } }[] };

/** nft's JSON output, in network namespace `ns` when given. */
const nftIn = (ns: string | undefined, ...args: string[]): NftDoc =>
  JSON.parse(ns ? execFileSync('ip', ['netns', 'exec', ns, 'nft', '-j', ...args], { encoding: 'utf8' }) : execFileSync('nft', ['-j', ...args], { encoding: 'utf8' })) as NftDoc;

/** The tables of the server listening on `port`, of its process `pid` only when given, in namespace `ns` when given. */
export function serverDscpTables(port: number, pid?: number, ns?: string): DscpTable[] {
  const nft = (...args: string[]) => nftIn(ns, ...args);
  const name = new RegExp(`^pels_${port}_pid${pid ?? '\\d+'}$`);
  return nft('list', 'tables')
    .nftables.flatMap((o) => (o.table?.family === 'inet' && name.test(o.table.name) ? [o.table.name] : []))
    .map((table) => {
      const elems = nft('list', 'map', 'inet', table, 'ssrc_dscp').nftables.find((o) => o.map)?.map?.elem ?? [];
      return { name: table, marks: new Map(elems.map(([ssrc, v]) => [ssrc, v.goto ? Number(/^dscp_(\d+)$/.exec(v.goto.target)?.[1]) : ('drop' as const)])) };
    });
}
