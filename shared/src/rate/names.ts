/** The rate controllers' names, apart from their code, for the protocol and the player. */
import { z } from 'zod';

export const RATE_CONTROLLER_NAMES = ['mkc', 'aimd', 'iiad', 'sqrt', 'tfrc', 'rap', 'fuzzy', 'iscc'] as const;
export type RateControllerName = (typeof RATE_CONTROLLER_NAMES)[number];
export const rateControllerNameSchema = z.enum(RATE_CONTROLLER_NAMES);

/** The controller called `name`, or a RangeError listing the names there are. */
export function parseRateControllerName(name: string): RateControllerName {
  const parsed = rateControllerNameSchema.safeParse(name);
  if (!parsed.success) throw new RangeError(`unknown rate controller "${name}"; one of ${RATE_CONTROLLER_NAMES.join(', ')}`);
  return parsed.data;
}
