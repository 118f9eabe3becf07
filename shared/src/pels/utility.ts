/**
 * Utility of enhancement data under loss (paper section 3): the share of
 * received enhancement packets that the decoder can use. Frames are H packets
 * and a packet is useful only if every packet before it in its frame arrived.
 */

function checkLoss(p: number): void {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`loss p must be in [0, 1]; got ${p}`);
}

function checkFrameSize(h: number): void {
  if (!(Number.isInteger(h) && h >= 1)) throw new RangeError(`frame size H must be a whole number of packets >= 1; got ${h}`);
}

/** 1 - (1-p)^H without cancellation for tiny p. */
function frameHitProbability(p: number, h: number): number {
  return -Math.expm1(h * Math.log1p(-p));
}

/** Eq. 2: expected useful (consecutively received) packets per frame of H packets under Bernoulli loss p. */
export function expectedUsefulPackets(p: number, h: number): number {
  checkLoss(p);
  checkFrameSize(h);
  if (p === 0) return h;
  return ((1 - p) / p) * frameHitProbability(p, h);
}

/** Eq. 3: best-effort utility U = (1-(1-p)^H) / (H p); 1 at p = 0 (the limit). */
export function bestEffortUtility(p: number, h: number): number {
  checkLoss(p);
  checkFrameSize(h);
  if (p === 0) return 1;
  return frameHitProbability(p, h) / (h * p);
}

/**
 * Eq. 6: PELS lower bound U >= (1 - p/p_thr) / (1 - p), counting only yellow
 * packets as useful. Above p_thr the bound is vacuous, so it returns 0 there.
 */
export function pelsUtilityBound(p: number, pThr: number): number {
  if (!(p >= 0 && p < 1)) throw new RangeError(`loss p must be in [0, 1); got ${p}`);
  if (!(pThr > 0 && pThr <= 1)) throw new RangeError(`p_thr must be in (0, 1]; got ${pThr}`);
  return Math.max(0, (1 - p / pThr) / (1 - p));
}
