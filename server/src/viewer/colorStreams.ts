import { randomInt } from 'node:crypto';
import type { types as ms } from 'mediasoup';
import { COLORS, type Color } from '@pels/shared/pels/color';

export const PAYLOAD_TYPE = 101;

/**
 * The three color streams (green, yellow, red) as producers on a
 * DirectTransport, each with an SSRC of its own: what a flow's packets are
 * sent into, and what the viewers' consumers forward.
 */
export async function produceColorStreams(direct: ms.DirectTransport, cname: string): Promise<{ producers: Record<Color, ms.Producer>; ssrcs: Record<Color, number> }> {
  const ssrcs = uniqueSsrcs();
  const producers = {} as Record<Color, ms.Producer>;
  for (const color of COLORS) {
    producers[color] = await direct.produce({
      kind: 'video',
      rtpParameters: {
        codecs: [
          {
            mimeType: 'video/VP8',
            payloadType: PAYLOAD_TYPE,
            clockRate: 90000,
            rtcpFeedback: [{ type: 'nack' }, { type: 'nack', parameter: 'pli' }, { type: 'ccm', parameter: 'fir' }],
          },
        ],
        // No scalabilityMode: consumers stay simple, forwarding packets untouched.
        encodings: [{ ssrc: ssrcs[color] }],
        rtcp: { cname },
      },
      appData: { color },
    });
  }
  return { producers, ssrcs };
}

function uniqueSsrcs(): Record<Color, number> {
  const used = new Set<number>();
  const pick = (): number => {
    let s: number;
    do s = randomInt(1, 2 ** 32 - 1);
    while (used.has(s));
    used.add(s);
    return s;
  };
  return { green: pick(), yellow: pick(), red: pick() };
}
