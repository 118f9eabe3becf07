/**
 * The state directory of the server the Playwright config starts: fresh for
 * each run, so that streams and gains one run's tests leave behind never reach
 * another run's server. The runner makes it when it loads the config; its
 * workers inherit the variable and so reuse it. Removed by globalTeardown.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function e2eStateDir(): string {
  return (process.env.PELS_E2E_STATE_DIR ??= mkdtempSync(join(tmpdir(), 'pels-e2e-state-')));
}

export default function removeE2eStateDir(): void {
  const dir = process.env.PELS_E2E_STATE_DIR;
  if (dir) rmSync(dir, { recursive: true, force: true });
}
