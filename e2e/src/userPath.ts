import { resolve } from 'node:path';

/**
 * A file or folder named on the command line, resolved from where the user ran npm: `npm run bench -- ... --csv
 * e2e/out/x.csv` runs in the e2e workspace, so a bare relative path would land in e2e/e2e/out.
 */
export const userPath = (path: string, env: NodeJS.ProcessEnv = process.env): string => resolve(env.INIT_CWD ?? process.cwd(), path);
