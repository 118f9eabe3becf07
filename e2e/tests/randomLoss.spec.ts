import { expect, test } from '@playwright/test';
import { MKC_PAPER_GAINS } from '@pels/shared/pels/mkc';
import { namespaceSupport } from '../src/net/topology';
import { runTestbed, TESTBED_DEFAULTS, type TestbedRun } from '../src/testbed/testbed';

/**
 * Random loss on the wire (the testbed's loss before the router's queues), as
 * on Wi-Fi or a mobile link: not congestion, so no queue protects the base
 * layer. What must hold on any machine is asserted (no decode error, no
 * checksum mismatch, green repaired, the rate above eq. 8 on the raw loss in
 * the same run); the frame rate and the picture under random loss are figures
 * of `npm run bench -- loss` (its fps and PSNR columns), attached here too.
 */
test.describe.configure({ mode: 'serial' });

let unsupported: string | null = null;
test.beforeAll(async () => {
  unsupported = await namespaceSupport();
});

async function run(title: string, o: Partial<typeof TESTBED_DEFAULTS>): Promise<TestbedRun> {
  test.skip(unsupported !== null, `needs network namespaces: ${unsupported}`);
  const r = await runTestbed({ ...TESTBED_DEFAULTS, ...o }, () => {});
  test.info().annotations.push({ type: title, description: JSON.stringify({ viewers: r.result.viewers, router: r.result.router }) });
  return r;
}

test('at 10% random loss the PELS player keeps decoding, green repaired by retransmission, at a rate above what the raw loss would allow', async () => {
  test.setTimeout(180_000);
  // fps is over the second half: 20 s.
  const { result } = await run('pels 10% loss', { viewers: 1, seconds: 40, capacityKbps: 2000, lossPct: 10 });
  const v = result.viewers[0]!;
  expect(v.errors).toEqual([]);
  expect(v.mode).toBe('pels');
  expect(v.loss?.green, 'the loss hits green on the wire').toBeGreaterThan(0.03);
  expect(v.decodeErrors, 'every frame the player decoded decoded cleanly').toBe(0);
  expect(v.checksumMismatches).toBe(0);
  expect(v.framesDecoded!.total, 'the player kept decoding over the run').toBeGreaterThan(0);
  expect(v.rtx!.recovered, 'packets the player got as retransmissions').toBeGreaterThan(0);
  // Stepping on the raw loss, eq. 8 settles at alpha / (beta p): about 400 kb/s at 10%, and the viewer moved to the
  // lower rendition. The rate controller steps on congestion, with the wire's loss (every color alike) taken out.
  const rawLossKbps = MKC_PAPER_GAINS.alphaKbps / (MKC_PAPER_GAINS.beta * v.loss!.green!);
  test.info().annotations.push({ type: 'rate against eq. 8 on the raw loss', description: JSON.stringify({ rateKbps: v.rateKbps, rawLossKbps }) });
  expect(v.rateKbps!).toBeGreaterThan(rawLossKbps);
  // The sound (the default stream has some): each packet goes out again with the next, so a packet is lost only when
  // both copies are (about 1% at 10%); without the copy its loss is the wire's.
  const audio = v.audio!;
  const audioLoss = audio.packetsLost / (audio.packetsLost + audio.packetsReceived);
  test.info().annotations.push({ type: 'sound at 10% loss', description: JSON.stringify({ audioLoss, concealedRatio: audio.concealedRatio, fed: audio.fed }) });
  expect(audioLoss, "sound packets lost after the copies: well under the wire's 10%").toBeLessThan(0.1 / 3);
  // Concealment, the samples the player made up, at most 3% of those it played: over the seconds the server's sound
  // came at real time (its sequence numbers). A machine too busy for the ingest to keep real time sends less for a
  // while and the player conceals the gap: not the wire's loss (docs/benchmarks.md "Sound under wire loss").
  test.skip(audio.fed.fedSeconds < 10, `the machine starved the sound's ingest: it came at real time ${audio.fed.fedSeconds} s of the second half`);
  expect(audio.fed.concealedRatio!, 'concealment at 10% wire loss, the sound fed').toBeLessThanOrEqual(0.03);
});

test("a player whose base chain breaks asks green's sender for keyframes, at most twice a second, and the server gets them", async () => {
  test.setTimeout(180_000);
  // Best effort retransmits nothing: at 10% loss the base chain breaks again and again.
  const seconds = 20;
  const { result, samples } = await run('best-effort 10% loss', { viewers: 1, seconds, capacityKbps: 2000, lossPct: 10, mode: 'best-effort' });
  const v = result.viewers[0]!;
  expect(v.errors).toEqual([]);
  expect(v.pliSent!).toBeGreaterThan(5);
  expect(v.pliSent!).toBeLessThanOrEqual(2 * seconds + 1);
  // The server counts the PLIs the green consumer received (the browser's own ones too, a few every 10 s);
  // one sent just before the last sample may still be on its way.
  const last = samples.at(-1)!;
  const sent = last.players[0]!.stats.pliSent;
  const received = last.api[0]!.keyframeRequests.green;
  test.info().annotations.push({ type: 'green key-frame requests', description: JSON.stringify({ sentByPlayer: sent, receivedByServer: received }) });
  expect(received).toBeGreaterThanOrEqual(sent - 1);
});
