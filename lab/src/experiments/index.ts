import type { Experiment } from './experiment';
import { delaysExperiment } from './delays';
import { gammaRedLossExperiment } from './gammaRedLoss';
import { gammaStabilityExperiment } from './gammaStability';
import { mkcFairnessExperiment } from './mkcFairness';
import { utilityExperiment } from './utility';

export const EXPERIMENTS: readonly Experiment[] = [utilityExperiment, gammaStabilityExperiment, gammaRedLossExperiment, delaysExperiment, mkcFairnessExperiment];

/** Experiments the CLI knows of but cannot run yet, with the reason. */
export const UNAVAILABLE: Readonly<Record<string, string>> = {
  psnr: 'not yet available: it needs the server\'s PSNR tables (PSNR of each source frame against the frames that can stand in for it), which are still being built',
};
