/**
 * Convergence benchmark: N viewers share a bottleneck of N x 600 kb/s, with
 * RTCP or router feedback. Prints, per run, the time until every viewer's MKC
 * rate first reaches 90% of its fair share, and the steady-state rates (mean
 * over the last third) against the stationary point C/N + alpha/beta.
 */
import { MKC_PAPER_GAINS, mkcStationaryKbps } from '@pels/shared/pels/mkc';
import { mean, round } from '../testbed/metrics';
import { runTestbed, TESTBED_DEFAULTS, type Sample } from '../testbed/testbed';

const PER_VIEWER_KBPS = 600;

export interface ConvergenceRow {
  viewers: number;
  feedback: 'rtcp' | 'router';
  capacityKbps: number;
  stationaryKbps: number;
  /** Seconds until all viewers reached 90% of the stationary rate; null: not within the run. */
  secondsTo90: number | null;
  steadyKbps: (number | null)[];
  /** Mean steady rate / stationary point. */
  ratio: number | null;
  jain: number | null;
  fps: (number | null | undefined)[];
}

function secondsTo(samples: Sample[], viewers: number, target: number): number | null {
  const reached: (number | null)[] = Array.from({ length: viewers }, () => null);
  for (const s of samples) {
    s.api.forEach((v, i) => {
      if (v && reached[i] === null && v.rateKbps >= target) reached[i] = s.t;
    });
  }
  return reached.every((t) => t !== null) ? Math.max(...(reached as number[])) : null;
}

export async function convergence(o: { viewers: number[]; feedback: ('rtcp' | 'router')[]; seconds: number }, progress: (m: string) => void): Promise<ConvergenceRow[]> {
  const rows: ConvergenceRow[] = [];
  for (const feedback of o.feedback) {
    for (const n of o.viewers) {
      const capacityKbps = n * PER_VIEWER_KBPS;
      const stationaryKbps = mkcStationaryKbps(capacityKbps, n, MKC_PAPER_GAINS);
      progress(`${n} viewer(s), ${feedback} feedback, ${capacityKbps} kb/s, ${o.seconds} s`);
      // Only the server's own lines: they say why a run failed.
      const { result, samples } = await runTestbed({ ...TESTBED_DEFAULTS, viewers: n, seconds: o.seconds, capacityKbps, feedback }, (m) => {
        if (m.startsWith('server: ')) progress(m);
      });
      const tail = samples.slice(Math.floor((samples.length * 2) / 3));
      const steady = Array.from({ length: n }, (_, i) => round(mean(tail.map((s) => s.api[i]?.rateKbps).filter((x): x is number => x !== undefined)), 1));
      const steadyMean = mean(steady.filter((x): x is number => x !== null));
      rows.push({
        viewers: n,
        feedback,
        capacityKbps,
        stationaryKbps,
        secondsTo90: secondsTo(samples, n, 0.9 * stationaryKbps),
        steadyKbps: steady,
        ratio: steadyMean === null ? null : round(steadyMean / stationaryKbps, 3),
        jain: result.jain,
        fps: result.viewers.map((v) => v.fps),
      });
    }
  }
  return rows;
}
