import { expect, test } from '@playwright/test';
import { runTestbed, TESTBED_DEFAULTS, type Sample } from '../src/testbed/testbed';

/**
 * Receiver-driven layers (`?rx=rlm`, flow mode `rlm`): the player starts on the
 * base layer and joins the others by experiment; the server sends every frame
 * of what the player subscribed, with no rate control of its own.
 */
test('an RLM player starts on green and joins yellow and red by itself on an open path', async () => {
  test.setTimeout(150_000);
  // Each join waits a random time (a mean of 5 s, up to 20 s) and doubles it after a failed one: up to 70 s, ended once
  // the player, having dropped to green, has held all three for 10 s.
  const count = (s: Sample) => s.api[0]?.colors.length ?? 0;
  const holdsAll = (samples: readonly Sample[]) =>
    samples.length > 10 && samples.slice(0, -10).some((s) => count(s) === 1) && samples.slice(-10).every((s) => count(s) === 3);
  const { result, samples } = await runTestbed({ ...TESTBED_DEFAULTS, mode: 'rlm', seconds: 70 }, () => {}, holdsAll);
  const colors = samples.map(count);
  test.info().annotations.push({ type: 'rlm', description: JSON.stringify({ colors, fps: result.viewers[0]?.fps }) });
  expect(result.viewers[0]!.errors).toEqual([]);
  expect(result.viewers[0]!.mode).toBe('rlm');
  // The server lists all colors until the player's first setColors: the base layer alone from then on, all three later.
  const baseOnly = colors.indexOf(1);
  expect(baseOnly).toBeGreaterThanOrEqual(0);
  expect(colors.slice(baseOnly)).toContain(3);
  expect(colors.at(-1)).toBe(3);
  // Holding all three, it decodes every layer (how many frames a second is the machine's: the testbed's fps).
  const decoded = (s: Sample | undefined) => s?.players[0]?.stats.framesDecoded;
  const [from, to] = [decoded(samples.at(-10)), decoded(samples.at(-1))];
  for (const k of ['tid0', 'tid1', 'tid2'] as const) expect(to![k] - from![k], `${k} decoded over the last 10 s`).toBeGreaterThan(0);
  expect(result.viewers[0]!.decodeErrors).toBe(0);
});
