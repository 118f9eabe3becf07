/** Malformed signaling messages, for the fault tests and the soak: none is a valid request the server could act on. */

/** Twenty-two kinds of malformed signaling message; none is a valid request the server could act on. */
export const MALFORMED: Array<string | object> = [
  '{not json',
  '',
  'null',
  '[]',
  '42',
  '['.repeat(2000) + ']'.repeat(2000),
  { id: 'x', method: 'join' },
  { id: 1, method: 'selfDestruct' },
  { id: 1, method: '__proto__', data: {} },
  { id: 1.5, method: 'getStreams' },
  { id: 1, method: 'join', data: { streamId: 42 } },
  { id: 1, method: 'join', data: { streamId: 'x'.repeat(1000) } },
  { id: 1, method: 'join', data: { streamId: 'default', mode: 'turbo' } },
  { id: 1, method: 'consume', data: { rtpCapabilities: { codecs: 1 } } },
  { id: 1, method: 'connectTransport', data: { dtlsParameters: { fingerprints: 'AB:CD' } } },
  { id: 1, method: 'setColors', data: { colors: ['red'] } },
  { id: 1, method: 'reportQuality', data: { psnrMeanDb: 'high', freezes: -1 } },
  { id: 1, method: 'createTransport' },
  { id: 1, method: 'resume' },
  { id: 1, method: 'consume', data: { rtpCapabilities: { codecs: [{ kind: 'video', mimeType: 'video/VP8', clockRate: 90000 }] } } },
  { id: 1, method: 'join', data: { streamId: 'default', transport: 'yes' } },
  { id: 1, method: 'consume', data: { rtpCapabilities: {}, resume: true, colors: ['red'] } },
];

/** `n` of them, cycling through the kinds; numeric ids made unique so each gets its own answer. */
export function malformedMessages(n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const m = MALFORMED[i % MALFORMED.length]!;
    return typeof m === 'string' ? m : JSON.stringify({ ...m, ...(Number.isInteger((m as { id?: unknown }).id) ? { id: i } : {}) });
  });
}
