import { chmod, writeFile } from 'node:fs/promises';
import { CHROMIUM_PATH } from '../chromium';

/** Writes an executable that starts Chromium inside network namespace `ns`, for Playwright's `executablePath`. */
export async function writeChromiumWrapper(ns: string, file: string): Promise<void> {
  await writeFile(file, `#!/bin/sh\nexec ip netns exec ${ns} ${CHROMIUM_PATH} "$@"\n`);
  await chmod(file, 0o755);
}
