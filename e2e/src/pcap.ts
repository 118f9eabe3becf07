/**
 * Just enough to check DSCP marks on the wire: capture with tcpdump and read the
 * classic libpcap file it writes, yielding the UDP datagrams with their IP TOS
 * (IPv4) or traffic class (IPv6) byte. Used by the server's DSCP marker test
 * and the e2e DSCP test; node APIs only, so both tsconfigs compile it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';

export interface UdpPacket {
  ipVersion: 4 | 6;
  /** IPv4 TOS or IPv6 traffic class: DSCP << 2 | ECN. */
  tos: number;
  srcPort: number;
  dstPort: number;
  /** The UDP payload as captured (may be cut short by the snap length). */
  payload: Buffer;
}

// Link types tcpdump writes: `-i lo` is EN10MB with zero MACs on Linux, `-i any` is LINUX_SLL or SLL2.
const DLT_NULL = 0;
const DLT_EN10MB = 1;
const DLT_RAW = 101;
const DLT_LINUX_SLL = 113;
const DLT_IPV4 = 228;
const DLT_IPV6 = 229;
const DLT_LINUX_SLL2 = 276;

/** The UDP datagrams (IPv4 and IPv6) of a classic pcap file, in capture order. */
export function readPcapUdp(file: Uint8Array): UdpPacket[] {
  const buf = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  if (buf.length < 24) throw new Error(`pcap: file too short (${buf.length} bytes)`);
  const magic = buf.readUInt32LE(0);
  let le: boolean;
  if (magic === 0xa1b2c3d4 || magic === 0xa1b23c4d) le = true;
  else if (magic === 0xd4c3b2a1 || magic === 0x4d3cb2a1) le = false;
  else if (magic === 0x0a0d0d0a) throw new Error('pcap: pcapng is not supported (tcpdump -w writes classic pcap)');
  else throw new Error(`pcap: bad magic 0x${magic.toString(16)}`);
  const u32 = (o: number): number => (le ? buf.readUInt32LE(o) : buf.readUInt32BE(o));
  const linkType = u32(20) & 0x0fffffff; // the upper bits may carry FCS info

  const out: UdpPacket[] = [];
  for (let off = 24; off + 16 <= buf.length; ) {
    const caplen = u32(off + 8);
    const start = off + 16;
    off = start + caplen;
    if (off > buf.length) break; // truncated last record (capture killed mid-write)
    const ip = networkLayer(buf.subarray(start, off), linkType, le);
    const p = ip && udpOf(ip);
    if (p) out.push(p);
  }
  return out;
}

/** The IP packet inside a link-layer frame, or undefined for non-IP frames. */
function networkLayer(frame: Buffer, linkType: number, le: boolean): Buffer | undefined {
  let etherType: number;
  let off: number;
  switch (linkType) {
    case DLT_EN10MB:
      if (frame.length < 14) return undefined;
      etherType = frame.readUInt16BE(12);
      off = 14;
      if (etherType === 0x8100 && frame.length >= 18) { // one 802.1Q tag
        etherType = frame.readUInt16BE(16);
        off = 18;
      }
      break;
    case DLT_LINUX_SLL:
      if (frame.length < 16) return undefined;
      etherType = frame.readUInt16BE(14);
      off = 16;
      break;
    case DLT_LINUX_SLL2:
      if (frame.length < 20) return undefined;
      etherType = frame.readUInt16BE(0);
      off = 20;
      break;
    case DLT_NULL: { // address family in the capturing host's byte order
      if (frame.length < 4) return undefined;
      const af = le ? frame.readUInt32LE(0) : frame.readUInt32BE(0);
      etherType = af === 2 ? 0x0800 : af === 10 || af === 24 || af === 28 || af === 30 ? 0x86dd : 0;
      off = 4;
      break;
    }
    case DLT_RAW:
    case DLT_IPV4:
    case DLT_IPV6:
      return frame;
    default:
      throw new Error(`pcap: unsupported link type ${linkType}`);
  }
  return etherType === 0x0800 || etherType === 0x86dd ? frame.subarray(off) : undefined;
}

function udpOf(ip: Buffer): UdpPacket | undefined {
  if (ip.length < 1) return undefined;
  const version = ip[0]! >> 4;
  let tos: number;
  let udp: Buffer;
  if (version === 4) {
    const ihl = (ip[0]! & 0x0f) * 4;
    if (ip.length < ihl || ihl < 20 || ip[9] !== 17) return undefined;
    if ((ip.readUInt16BE(6) & 0x1fff) !== 0) return undefined; // a later fragment: no UDP header
    tos = ip[1]!;
    udp = ip.subarray(ihl);
  } else if (version === 6) {
    // Datagrams behind extension headers are skipped: nothing here sends them.
    if (ip.length < 40 || ip[6] !== 17) return undefined;
    tos = (ip.readUInt16BE(0) >> 4) & 0xff;
    udp = ip.subarray(40);
  } else {
    return undefined;
  }
  if (udp.length < 8) return undefined;
  const udpLen = udp.readUInt16BE(4);
  return {
    ipVersion: version,
    tos,
    srcPort: udp.readUInt16BE(0),
    dstPort: udp.readUInt16BE(2),
    payload: udp.subarray(8, Math.max(8, Math.min(udp.length, udpLen))),
  };
}

/**
 * The SSRC of an RTP packet (SRTP leaves it in clear at payload bytes 8..11),
 * or undefined for anything else: not version 2, or RTCP (RFC 5761: second
 * byte 192..223), or too short.
 */
export function rtpSsrc(payload: Uint8Array): number | undefined {
  if (payload.length < 12 || payload[0]! >> 6 !== 2) return undefined;
  if (payload[1]! >= 192 && payload[1]! <= 223) return undefined;
  return Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).readUInt32BE(8);
}

export function tcpdumpAvailable(): boolean {
  return spawnSync('tcpdump', ['--version'], { stdio: 'ignore' }).status === 0;
}

export interface Capture {
  /** Resolves when tcpdump exits by itself (after `count` packets). */
  readonly exited: Promise<void>;
  /** Stops tcpdump if still running, then reads the file. */
  stop(): Promise<UdpPacket[]>;
}

/**
 * Starts `tcpdump -i iface -w file [-c count] filter` (in network namespace
 * `netns` when given) and resolves once it is listening (it says so on stderr), so that nothing sent afterwards is missed.
 */
export function startCapture(opts: { iface: string; file: string; filter: string; count?: number; readyTimeoutMs?: number; netns?: string }): Promise<Capture> {
  // -U: write each packet as it comes, so a stop loses nothing; -n: no DNS lookups.
  const args = ['-i', opts.iface, '-n', '-U', '-w', opts.file];
  if (opts.count !== undefined) args.push('-c', String(opts.count));
  args.push(opts.filter);
  // `ip netns exec` execs tcpdump: the signals below reach it.
  const [cmd, argv] = opts.netns ? ['ip', ['netns', 'exec', opts.netns, 'tcpdump', ...args]] : ['tcpdump', args];
  const proc = spawn(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  let ready = false;
  const exited = new Promise<void>((resolve) => proc.once('close', () => resolve()));
  return new Promise<Capture>((resolve, reject) => {
    const fail = (why: string): void => {
      clearTimeout(timer);
      proc.kill('SIGKILL');
      reject(new Error(`tcpdump ${why}: ${stderr.trim()}`));
    };
    const timer = setTimeout(() => fail('did not start listening'), opts.readyTimeoutMs ?? 10_000);
    const onError = (e: Error): void => fail(`failed to start (${e.message})`);
    const onEarlyClose = (code: number | null): void => fail(`exited (${code}) before listening`);
    proc.once('error', onError);
    proc.once('close', onEarlyClose);
    proc.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      if (ready || !stderr.includes('listening on')) return;
      ready = true;
      clearTimeout(timer);
      proc.off('close', onEarlyClose);
      proc.off('error', onError);
      proc.on('error', () => {}); // a late kill error must not crash the test process
      resolve({
        exited,
        async stop() {
          if (proc.exitCode === null && proc.signalCode === null) {
            proc.kill('SIGINT'); // tcpdump flushes and closes the file on SIGINT
            await exited;
          }
          return readPcapUdp(await readFile(opts.file));
        },
      });
    });
  });
}
