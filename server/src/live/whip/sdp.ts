/**
 * The parts of an SDP offer (RFC 8866, with the WebRTC attributes of RFC 8829)
 * a WHIP publisher's offer is read for: per media section its payload types
 * (rtpmap, fmtp, rtcp-fb), header extensions, SSRCs, mid, direction, and the
 * ICE and DTLS parameters (taken from the session when a section has none).
 * Anything else is ignored. Throws SdpError naming what is missing or wrong.
 */

export class SdpError extends Error {
  override name = 'SdpError';
}

export interface SdpCodec {
  payloadType: number;
  /** As written: H264, opus, rtx, ... */
  name: string;
  clockRate: number;
  channels: number | undefined;
  /** The fmtp line's parameters, as written (`a=b;c=d`), or ''. */
  fmtp: string;
  /** rtcp-fb lines for this payload type (and `*`): `nack`, `nack pli`, `transport-cc`, ... */
  feedback: string[];
}

export interface SdpMedia {
  kind: string;
  port: number;
  protocol: string;
  /** The m= line's formats, in the offerer's order of preference. */
  formats: string[];
  mid: string | undefined;
  direction: 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';
  codecs: SdpCodec[];
  extensions: { id: number; uri: string }[];
  /** SSRCs in their order of appearance; FID groups pair a media SSRC with its retransmission SSRC. */
  ssrcs: number[];
  fid: [number, number][];
  rtcpMux: boolean;
  rtcpRsize: boolean;
  iceUfrag: string;
  icePwd: string;
  fingerprints: { algorithm: string; value: string }[];
  setup: 'actpass' | 'active' | 'passive';
}

export interface SdpOffer {
  media: SdpMedia[];
  /** Mids of the first BUNDLE group, empty without one. */
  bundle: string[];
}

/** Largest offer read: a publisher's offer is a few kilobytes. */
export const MAX_SDP_BYTES = 32 * 1024;

const DIRECTIONS = ['sendrecv', 'sendonly', 'recvonly', 'inactive'] as const;
const SETUPS = ['actpass', 'active', 'passive'] as const;

interface Section {
  m: string;
  attrs: [string, string][];
}

export function parseSdpOffer(text: string): SdpOffer {
  if (text.length > MAX_SDP_BYTES) throw new SdpError(`the offer is over ${MAX_SDP_BYTES} bytes`);
  const lines = text.split(/\r?\n/).filter((l) => l.length > 0);
  if (lines[0] !== 'v=0') throw new SdpError('not an SDP offer: it must start with "v=0"');
  const session: [string, string][] = [];
  const sections: Section[] = [];
  for (const line of lines) {
    if (!/^[a-z]=/.test(line)) throw new SdpError(`malformed SDP line ${quoted(line)}: each line is <letter>=<value>`);
    const type = line[0]!;
    const value = line.slice(2);
    if (type === 'm') sections.push({ m: value, attrs: [] });
    else if (type === 'a') {
      const colon = value.indexOf(':');
      const attr: [string, string] = colon < 0 ? [value, ''] : [value.slice(0, colon), value.slice(colon + 1)];
      (sections.at(-1)?.attrs ?? session).push(attr);
    }
  }
  if (!sections.length) throw new SdpError('the offer has no media sections (m= lines)');
  const bundle = session.find(([k, v]) => k === 'group' && v.startsWith('BUNDLE '))?.[1].split(' ').slice(1).filter(Boolean) ?? [];
  return { media: sections.map((s, i) => parseMedia(s, session, i)), bundle };
}

function parseMedia(s: Section, session: [string, string][], index: number): SdpMedia {
  const [kind, port, protocol, ...formats] = s.m.split(' ');
  const where = `media section ${index + 1} (${(kind ?? '?').slice(0, 20)})`;
  if (!kind || !protocol || !/^\d+$/.test(port ?? '')) throw new SdpError(`${where}: malformed m= line ${quoted(s.m)}`);
  const get = (k: string) => s.attrs.find(([a]) => a === k)?.[1] ?? session.find(([a]) => a === k)?.[1];
  const all = (k: string) => s.attrs.filter(([a]) => a === k).map(([, v]) => v);
  const fingerprints = [...all('fingerprint'), ...(all('fingerprint').length ? [] : session.filter(([a]) => a === 'fingerprint').map(([, v]) => v))].map((v) => {
    const [algorithm, value] = v.split(' ');
    if (!algorithm || !value) throw new SdpError(`${where}: malformed fingerprint ${quoted(v)}`);
    return { algorithm: algorithm.toLowerCase(), value: value.toUpperCase() };
  });
  const iceUfrag = get('ice-ufrag');
  const icePwd = get('ice-pwd');
  const setup = get('setup') ?? 'actpass';
  const port0 = Number(port);
  if (!(SETUPS as readonly string[]).includes(setup)) throw new SdpError(`${where}: a=setup ${quoted(setup)} is not actpass, active or passive`);
  const direction = DIRECTIONS.find((d) => s.attrs.some(([a]) => a === d)) ?? 'sendrecv';

  const codecs: SdpCodec[] = [];
  for (const v of all('rtpmap')) {
    const m = /^(\d+) ([^/\s]+)\/(\d+)(?:\/(\d+))?$/.exec(v.trim());
    if (!m) throw new SdpError(`${where}: malformed a=rtpmap ${quoted(v)}`);
    const payloadType = Number(m[1]);
    if (payloadType > 127) throw new SdpError(`${where}: payload type ${payloadType} is over 127`);
    codecs.push({ payloadType, name: m[2]!, clockRate: Number(m[3]), channels: m[4] ? Number(m[4]) : undefined, fmtp: '', feedback: [] });
  }
  for (const v of all('fmtp')) {
    const sp = v.indexOf(' ');
    const c = codecs.find((x) => String(x.payloadType) === v.slice(0, sp));
    if (c && sp > 0) c.fmtp = v.slice(sp + 1).trim();
  }
  for (const v of all('rtcp-fb')) {
    const sp = v.indexOf(' ');
    const pt = v.slice(0, sp);
    for (const c of codecs) if (sp > 0 && (pt === '*' || String(c.payloadType) === pt)) c.feedback.push(v.slice(sp + 1).trim());
  }
  const extensions = all('extmap').map((v) => {
    const m = /^(\d+)(?:\/\w+)? (\S+)/.exec(v);
    if (!m || Number(m[1]) < 1 || Number(m[1]) > 255) throw new SdpError(`${where}: malformed a=extmap ${quoted(v)}`);
    return { id: Number(m[1]), uri: m[2]! };
  });
  const ssrcs = [...new Set(all('ssrc').map((v) => Number(/^(\d+)/.exec(v)?.[1] ?? NaN)))];
  if (!ssrcs.every(isSsrc)) throw new SdpError(`${where}: malformed a=ssrc`);
  const fid = all('ssrc-group')
    .filter((v) => v.startsWith('FID '))
    .map((v) => v.split(' ').slice(1).map(Number))
    .filter((g): g is [number, number] => g.length === 2 && g.every(isSsrc));
  return {
    kind,
    port: port0,
    protocol,
    formats,
    mid: s.attrs.find(([a]) => a === 'mid')?.[1],
    direction,
    codecs,
    extensions,
    ssrcs,
    fid,
    rtcpMux: s.attrs.some(([a]) => a === 'rtcp-mux'),
    rtcpRsize: s.attrs.some(([a]) => a === 'rtcp-rsize'),
    iceUfrag: iceUfrag ?? '',
    icePwd: icePwd ?? '',
    fingerprints,
    setup: setup as SdpMedia['setup'],
  };
}

/** An SSRC: a 32-bit unsigned integer. */
function isSsrc(x: number): boolean {
  return Number.isInteger(x) && x >= 0 && x < 2 ** 32;
}

/** Part of the offer quoted back in an error: its start only, so an error stays a line whatever was sent. */
function quoted(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}...` : text);
}
