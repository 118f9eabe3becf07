/**
 * What a WHIP publisher's offer is answered with: one video section of H.264
 * (packetization mode 1, the profiles the WHIP router lists) and at most one
 * audio section of Opus are taken, every other section is rejected (port 0).
 * The taken sections become mediasoup producers' RTP parameters, and the
 * answer tells the publisher the server's ICE-lite credentials, DTLS
 * fingerprint and candidates (all of them: no trickle). Pure.
 */
import type { types as ms } from 'mediasoup';
import { OPUS_CODEC } from '../../sfu/mediaWorker';
import { SdpError, type SdpCodec, type SdpMedia, type SdpOffer } from './sdp';

/** H.264 profiles taken, by the first four hex digits of profile-level-id: constrained baseline, baseline, main, constrained high, high. */
const H264_PROFILES = ['42e0', '4200', '4d00', '640c', '6400'] as const;

/** The WHIP router's codecs: H.264 in each profile taken (mediasoup matches H.264 by profile), and the viewers' Opus. */
export const WHIP_MEDIA_CODECS: ms.RouterRtpCodecCapability[] = [
  ...H264_PROFILES.map((p): ms.RouterRtpCodecCapability => ({
    kind: 'video',
    mimeType: 'video/H264',
    clockRate: 90000,
    parameters: { 'packetization-mode': 1, 'profile-level-id': `${p}1f`, 'level-asymmetry-allowed': 1 },
  })),
  { ...OPUS_CODEC },
];

/** The publisher's capture time of each frame (read by the WHIP session for the stream's latency). */
export const ABS_CAPTURE_TIME = 'http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time';

/** Header extensions taken: mid (to match packets without SSRCs), the two send-side bandwidth estimations', capture time, audio level. */
const EXTENSIONS = [
  'urn:ietf:params:rtp-hdrext:sdes:mid',
  'http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time',
  'http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01',
  ABS_CAPTURE_TIME,
  'urn:ietf:params:rtp-hdrext:ssrc-audio-level',
];
const MID_EXTENSION = EXTENSIONS[0];
const FEEDBACK = ['nack', 'nack pli', 'ccm fir', 'goog-remb', 'transport-cc'];

export interface TakenMedia {
  kind: 'audio' | 'video';
  mid: string;
  /** The payload types answered: the codec, then its retransmission's. */
  codecs: SdpCodec[];
  extensions: { id: number; uri: string }[];
  rtpParameters: ms.RtpParameters;
}

export interface PublishPlan {
  /** Each offered section, taken or rejected, in the offer's order. */
  sections: ({ taken: TakenMedia } | { rejected: SdpMedia })[];
  /** The publisher's DTLS side: the server takes the other (passive to an actpass offer). */
  remoteDtls: ms.DtlsParameters;
  /** The publisher asked for reduced-size RTCP. */
  rtcpRsize: boolean;
}

export function planPublish(offer: SdpOffer): PublishPlan {
  let video: TakenMedia | undefined;
  let audio: TakenMedia | undefined;
  const sections = offer.media.map((m): PublishPlan['sections'][number] => {
    const sends = m.port !== 0 && (m.direction === 'sendonly' || m.direction === 'sendrecv') && m.protocol.includes('RTP');
    if (sends && m.kind === 'video' && !video) {
      video = take(m, 'video', chooseH264(m));
      if (video) return { taken: video };
    }
    if (sends && m.kind === 'audio' && !audio) {
      audio = take(m, 'audio', m.codecs.find((c) => c.name.toLowerCase() === 'opus' && c.clockRate === 48000 && c.channels === 2));
      if (audio) return { taken: audio };
    }
    return { rejected: m };
  });
  if (!video) throw new SdpError('the offer sends no H.264 video in packetization mode 1 (this server takes H.264 constrained baseline, baseline, main or high, and Opus)');
  const taken = [video, ...(audio ? [audio] : [])];
  const first = offer.media.find((m) => m.mid === taken[0]!.mid)!;
  for (const t of taken) {
    const m = offer.media.find((x) => x.mid === t.mid)!;
    if (!m.iceUfrag || !m.icePwd) throw new SdpError(`media section "${t.mid}" has no ICE credentials (a=ice-ufrag, a=ice-pwd)`);
    if (!m.fingerprints.length) throw new SdpError(`media section "${t.mid}" has no DTLS fingerprint (a=fingerprint)`);
    if (!m.rtcpMux) throw new SdpError(`media section "${t.mid}" does not multiplex RTCP (a=rtcp-mux)`);
    if (taken.length > 1 && !offer.bundle.includes(t.mid)) throw new SdpError(`media section "${t.mid}" is not in the offer's BUNDLE group: the server takes the publisher's media on one transport`);
    if (m.iceUfrag !== first.iceUfrag || m.fingerprints[0]?.value !== first.fingerprints[0]?.value) throw new SdpError('the bundled media sections name different ICE credentials or DTLS fingerprints');
  }
  const fingerprints = first.fingerprints.filter((f): f is ms.DtlsFingerprint => ['sha-1', 'sha-224', 'sha-256', 'sha-384', 'sha-512'].includes(f.algorithm));
  if (!fingerprints.length) throw new SdpError('no DTLS fingerprint in a hash the server knows (sha-256, ...)');
  // actpass and active make the publisher the DTLS client; passive makes it the server.
  return { sections, remoteDtls: { role: first.setup === 'passive' ? 'server' : 'client', fingerprints }, rtcpRsize: first.rtcpRsize };
}

function chooseH264(m: SdpMedia): SdpCodec | undefined {
  const byPreference = m.formats.map((f) => m.codecs.find((c) => String(c.payloadType) === f)).filter((c): c is SdpCodec => c !== undefined);
  return byPreference.find((c) => {
    if (c.name.toUpperCase() !== 'H264' || c.clockRate !== 90000) return false;
    const p = fmtpParameters(c.fmtp);
    const profile = String(p['profile-level-id'] ?? '42e01f').toLowerCase();
    return p['packetization-mode'] === 1 && (H264_PROFILES as readonly string[]).includes(profile.slice(0, 4));
  });
}

function take(m: SdpMedia, kind: 'audio' | 'video', codec: SdpCodec | undefined): TakenMedia | undefined {
  if (!codec) return undefined;
  if (m.mid === undefined) throw new SdpError(`the ${kind} section has no a=mid`);
  const rtx = kind === 'video' ? m.codecs.find((c) => c.name.toLowerCase() === 'rtx' && fmtpParameters(c.fmtp).apt === codec.payloadType) : undefined;
  const extensions = m.extensions.filter((e) => EXTENSIONS.includes(e.uri));
  const feedback = codec.feedback.filter((f) => FEEDBACK.includes(f));
  const mainSsrc = m.fid[0]?.[0] ?? m.ssrcs[0];
  const rtxSsrc = m.fid.find(([s]) => s === mainSsrc)?.[1];
  if (mainSsrc === undefined && !extensions.some((e) => e.uri === MID_EXTENSION)) throw new SdpError(`the ${kind} section names no SSRC (a=ssrc) and no mid header extension: its packets could not be told apart`);
  const mime = `${kind}/${kind === 'video' ? 'H264' : 'opus'}`;
  const rtpParameters: ms.RtpParameters = {
    mid: m.mid,
    codecs: [
      {
        mimeType: mime,
        payloadType: codec.payloadType,
        clockRate: codec.clockRate,
        ...(codec.channels ? { channels: codec.channels } : {}),
        parameters: fmtpParameters(codec.fmtp),
        rtcpFeedback: feedback.map((f) => {
          const [type, parameter] = f.split(' ');
          return { type: type!, parameter: parameter ?? '' };
        }),
      },
      ...(rtx ? [{ mimeType: 'video/rtx', payloadType: rtx.payloadType, clockRate: rtx.clockRate, parameters: { apt: codec.payloadType } }] : []),
    ],
    headerExtensions: extensions.map((e) => ({ uri: e.uri as ms.RtpHeaderExtensionUri, id: e.id })),
    encodings: [mainSsrc === undefined ? {} : { ssrc: mainSsrc, ...(rtx && rtxSsrc !== undefined ? { rtx: { ssrc: rtxSsrc } } : {}) }],
    rtcp: { reducedSize: m.rtcpRsize },
  };
  return { kind, mid: m.mid, codecs: [{ ...codec, feedback }, ...(rtx ? [rtx] : [])], extensions, rtpParameters };
}

/** `a=b;c=d` as an object, integers as numbers (profile-level-id stays a string: it is hex). */
export function fmtpParameters(fmtp: string): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const part of fmtp.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    out[key] = key !== 'profile-level-id' && /^\d+$/.test(value) ? Number(value) : value;
  }
  return out;
}

/** The server's side of the transport, as mediasoup made it. */
export interface LocalTransport {
  ice: ms.IceParameters;
  candidates: ms.IceCandidate[];
  fingerprint: ms.DtlsFingerprint;
  /** The DTLS side the server takes. */
  setup: 'active' | 'passive';
}

export function answerSdp(plan: PublishPlan, local: LocalTransport, sessionId: string): string {
  const taken = plan.sections.flatMap((s) => ('taken' in s ? [s.taken.mid] : []));
  const lines = ['v=0', `o=- ${sessionId} 1 IN IP4 0.0.0.0`, 's=-', 't=0 0', 'a=ice-lite', `a=group:BUNDLE ${taken.join(' ')}`];
  for (const s of plan.sections) {
    if ('rejected' in s) {
      const m = s.rejected;
      lines.push(`m=${m.kind} 0 ${m.protocol} ${m.formats.join(' ') || '0'}`, 'c=IN IP4 0.0.0.0', ...(m.mid !== undefined ? [`a=mid:${m.mid}`] : []), 'a=inactive');
      continue;
    }
    const t = s.taken;
    lines.push(
      `m=${t.kind} 9 UDP/TLS/RTP/SAVPF ${t.codecs.map((c) => c.payloadType).join(' ')}`,
      'c=IN IP4 0.0.0.0',
      `a=mid:${t.mid}`,
      `a=ice-ufrag:${local.ice.usernameFragment}`,
      `a=ice-pwd:${local.ice.password}`,
      `a=fingerprint:${local.fingerprint.algorithm} ${local.fingerprint.value}`,
      `a=setup:${local.setup}`,
      'a=recvonly',
      'a=rtcp-mux',
      ...(plan.rtcpRsize ? ['a=rtcp-rsize'] : []),
      ...t.extensions.map((e) => `a=extmap:${e.id} ${e.uri}`),
      ...t.codecs.flatMap((c) => [
        `a=rtpmap:${c.payloadType} ${c.name}/${c.clockRate}${c.channels ? `/${c.channels}` : ''}`,
        ...(c.fmtp ? [`a=fmtp:${c.payloadType} ${c.fmtp}`] : []),
        ...c.feedback.map((f) => `a=rtcp-fb:${c.payloadType} ${f}`),
      ]),
      ...local.candidates.map(candidateLine),
      'a=end-of-candidates',
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

function candidateLine(c: ms.IceCandidate): string {
  return `a=candidate:${c.foundation} 1 ${c.protocol} ${c.priority} ${c.address} ${c.port} typ ${c.type}${c.protocol === 'tcp' ? ` tcptype ${c.tcpType ?? 'passive'}` : ''}`;
}
