/**
 * The nftables layout that marks DSCP by SSRC, as nft script text (pure).
 *
 * One table per server instance, `inet pels_<instance>_pid<pid>`:
 * - chain `output` (hook output): one rule matches RTP from the RTC ports and
 *   looks its SSRC up in the verdict map `ssrc_dscp`;
 * - the map holds SSRC -> `goto dscp_<n>`, one element per marked stream, or
 *   SSRC -> `drop` for a stream held back (a closed retransmission gate);
 * - chain `dscp_<n>` sets DSCP n (one rule per address family).
 * So the rules stay fixed whatever the number of viewers, and marking a viewer
 * is adding map elements. (nft 1.0.6 cannot take the DSCP value itself from a
 * map: `ip dscp set ... map` is refused, hence a chain per value.)
 */
import type { ElementChanges } from './ssrcMarks';

const MAP = 'ssrc_dscp';
const PID_SUFFIX = /^pels_.*_pid(\d+)$/;

/** `inet <name>` of an instance's table; the pid tells a later start whether its owner still runs. */
export function tableOf(instance: string, pid: number): string {
  return `inet pels_${instance.toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 64)}_pid${pid}`;
}

/** The pid a table of `tableOf` names, or undefined for any other table. */
export function ownerPid(name: string): number | undefined {
  const pid = Number(PID_SUFFIX.exec(name)?.[1]);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/** Deletes a table if it exists (declaring it first makes the delete succeed either way). */
export function dropTable(table: string): string {
  return `table ${table}\ndelete table ${table}\n`;
}

/** Creates the table empty, replacing any earlier one of the same name. */
export function createTable(table: string, ports: { min: number; max: number }): string {
  // The RTP match: source port in mediasoup's RTC range, RTP version 2, not
  // RTCP (RFC 5761: second byte 192..223; RTCP carries the media SSRC at the
  // same offset in report blocks), SSRC at payload offset 8, i.e. bit 128 of
  // the transport header. tc classifies on egress, after netfilter, so it sees
  // the mark whatever the chain priority.
  return (
    dropTable(table) +
    `table ${table} {\n` +
    `  map ${MAP} {\n    typeof @th,128,32 : verdict\n  }\n` +
    `  chain output {\n    type filter hook output priority mangle; policy accept;\n` +
    `    udp sport ${ports.min}-${ports.max} @th,64,2 2 @th,72,8 != 192-223 @th,128,32 vmap @${MAP}\n  }\n` +
    `}\n`
  );
}

/**
 * One transaction applying `c`; `newDscps` are values with no chain yet.
 * Empty when there is nothing to do.
 */
export function changeElements(table: string, c: ElementChanges, newDscps: readonly number[]): string {
  let s = '';
  for (const n of newDscps) {
    // Flushing first makes this safe to repeat when it is unknown whether an earlier try got through.
    // `ip dscp set` in an inet table gets an implicit `meta nfproto ipv4` match (ip6 likewise).
    s += `add chain ${table} dscp_${n}\nflush chain ${table} dscp_${n}\n`;
    s += `add rule ${table} dscp_${n} ip dscp set ${n}\nadd rule ${table} dscp_${n} ip6 dscp set ${n}\n`;
  }
  if (c.flush) s += `flush map ${table} ${MAP}\n`;
  if (c.remove.length) s += `delete element ${table} ${MAP} { ${c.remove.join(', ')} }\n`;
  if (c.add.length) s += `add element ${table} ${MAP} { ${c.add.map((e) => `${e.ssrc} : ${e.dscp === 'drop' ? 'drop' : `goto dscp_${e.dscp}`}`).join(', ')} }\n`;
  return s;
}
