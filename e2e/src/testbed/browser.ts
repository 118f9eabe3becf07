/** Headless Chromium for the testbed's viewers: in the viewers' namespace when there is one. */
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../chromium';
import { writeChromiumWrapper } from '../net/namespacedChromium';
import type { Topology } from '../net/topology';
import type { Resources } from './resources';

/** `origins`: the server's base URL, or a cluster's front and edges (comma-separated), as the pages reach them. */
export async function launchBrowser(topo: Topology | null, origins: string, res: Resources): Promise<Browser> {
  let executablePath = CHROMIUM_PATH;
  if (topo) {
    // Chromium runs in the viewers' namespace: Playwright starts it through this wrapper.
    executablePath = join(tmpdir(), `pels-chromium-${process.pid}.sh`);
    await writeChromiumWrapper(topo.clientNs, executablePath);
    res.add(() => rm(executablePath, { force: true }));
  }
  // WebCodecs and frame transforms need a secure context; the server is on plain HTTP at a namespace address.
  const args = topo ? [...CHROMIUM_ARGS, `--unsafely-treat-insecure-origin-as-secure=${origins}`] : CHROMIUM_ARGS;
  const browser = await chromium.launch({ executablePath, args, headless: true });
  res.add(() => browser.close());
  return browser;
}
