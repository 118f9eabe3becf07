/**
 * Which kind of local ICE candidate the connection uses (host, srflx, prflx,
 * relay), from an RTCPeerConnection's stats: the server sees a TURN relay only
 * as another UDP peer, so the player tells it.
 */

type Stats = ReadonlyMap<string, { type: string; [k: string]: unknown }>;

export function selectedCandidateType(report: Stats): string | undefined {
  let pairId: string | undefined;
  for (const s of report.values()) {
    if (s.type === 'transport' && typeof s.selectedCandidatePairId === 'string') pairId = s.selectedCandidatePairId;
  }
  // Browsers without the transport's selectedCandidatePairId mark the pair itself.
  const pair = pairId !== undefined ? report.get(pairId) : [...report.values()].find((s) => s.type === 'candidate-pair' && s.selected === true);
  const local = typeof pair?.localCandidateId === 'string' ? report.get(pair.localCandidateId) : undefined;
  return typeof local?.candidateType === 'string' ? local.candidateType : undefined;
}
