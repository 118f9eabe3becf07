import type { Experiment } from './experiment';
import { delaysExperiment } from './delays';
import { gammaRedLossExperiment } from './gammaRedLoss';
import { gammaStabilityExperiment } from './gammaStability';
import { mkcFairnessExperiment } from './mkcFairness';
import { mkcStartupExperiment } from './mkcStartup';
import { psnrExperiment } from './psnr';
import { rlmTcpExperiment } from './rlmTcp';
import { scalabilityExperiment } from './scalability';
import { tightLinkExperiment } from './tightLink';
import { uptaExperiment } from './upta';
import { utilityExperiment } from './utility';

export const EXPERIMENTS: readonly Experiment[] = [utilityExperiment, gammaStabilityExperiment, gammaRedLossExperiment, delaysExperiment, mkcFairnessExperiment, mkcStartupExperiment, psnrExperiment, scalabilityExperiment, tightLinkExperiment, uptaExperiment, rlmTcpExperiment];

/** Experiments the CLI knows of but cannot run yet, with the reason. */
export const UNAVAILABLE: Readonly<Record<string, string>> = {};
