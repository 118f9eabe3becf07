import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uptaExperiment } from './upta';

const result = uptaExperiment.run({ seed: 1, short: true });
const row = (scenario: number, scheduler: string) => result.rows.find((r) => r.part === 'throughput' && r.scenario === scenario && r.scheduler === scheduler)!;
const download = (scheduler: string, bytes: number) => result.rows.find((r) => r.part === 'download' && r.scenario === 1 && r.scheduler === scheduler && r.fileBytes === bytes)!.downloadS as number;

test('without UPTA the video loses about a quarter of its packets while the ON-OFF source is on; with UPTA the router drops it', () => {
  const wfq = row(5, 'WFQ').videoLossU as number;
  assert.ok(wfq > 0.18 && wfq < 0.3, `WFQ video loss in U ${wfq}`);
  for (const s of ['WFQ+', 'CSFQ+']) assert.ok((row(5, s).videoLossU as number) > 0.9, `${s}: ${row(5, s).videoLossU}`);
  assert.ok((row(1, 'WFQ+').videoLossI as number) < 0.02);
});

test('TCP gains about omega/2 with UPTA (WFQ) and gains with CSFQ too', () => {
  const ideal = (1.33 * 1) / 2;
  const gain = (row(5, 'WFQ+').tcpMbps as number) - (row(5, 'WFQ').tcpMbps as number);
  assert.ok(gain > 0.75 * ideal && gain < 1.25 * ideal, `WFQ gain ${gain} vs ideal ${ideal}`);
  assert.ok((row(5, 'CSFQ+').tcpMbps as number) > (row(5, 'CSFQ').tcpMbps as number) + 0.5 * ideal);
});

test('UPTA holds its decision through the interval and leaves intelligibility about as it was', () => {
  for (const sc of [1, 5]) assert.ok((row(sc, 'WFQ+').uptaChangesAfter1s as number) <= 1, `scenario ${sc}`);
  for (const sc of [1, 5]) assert.ok(Math.abs((row(sc, 'WFQ+').intelligibility as number) - (row(sc, 'WFQ').intelligibility as number)) <= 0.1, `scenario ${sc}`);
  assert.ok((row(5, 'WFQ').intelligibility as number) < 0.1);
});

test('downloads finish sooner with UPTA (Table 5, 150 KB and 1.5 MB)', () => {
  for (const [base, plus] of [['WFQ', 'WFQ+'], ['CSFQ', 'CSFQ+']]) {
    for (const bytes of [150_000, 1_500_000]) assert.ok(download(plus!, bytes) < download(base!, bytes), `${plus} ${bytes}`);
  }
});
