import { ProbeBoard, type ProbeBoardView } from '../pels/probeBoard';
import { probeBoardFor, type RenditionPolicyParams } from '../pels/renditionPolicy';
import type { FrameLoss, IntelligibilityModel, LayerCount } from '../upta/intelligibility';

/**
 * What a viewer's core asks of the stream it watches rather than being told:
 * the probe board it shares with the stream's other viewers (one move up at
 * a time, renditionPolicy.ts) and the expected quality of a rendition's video
 * under loss (UPTA, from that rendition's PSNR table). Their answers depend on
 * more than this viewer's inputs, so a recording keeps them (recording.ts).
 */
export interface StreamContext {
  readonly board: ProbeBoardView;
  /** Expected PSNR (dB) of `rendition` with `layers` layers sent at `loss`; null while its PSNR table has no rows. */
  expectedPsnr(rendition: number, layers: LayerCount, loss: FrameLoss): number | null;
}

/**
 * A stream's context for one viewer: `board` shared by the stream's viewers
 * (absent: a board of the viewer's own, no one to wait for or learn from), and
 * each rendition's model as it stands (absent: no table, UPTA never acts).
 */
export function streamContext(opts: { board?: ProbeBoardView; policy?: RenditionPolicyParams; model?: (rendition: number) => IntelligibilityModel | null }): StreamContext {
  const board = opts.board ?? (opts.policy ? probeBoardFor(opts.policy) : new ProbeBoard(0));
  const { model } = opts;
  return { board, expectedPsnr: (rendition, layers, loss) => model?.(rendition)?.expectedPsnr(layers, loss) ?? null };
}
