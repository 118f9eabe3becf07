import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maxMinShare } from '@pels/shared/upta/upta';
import { demandKbps, parseFlowCounters, uptaRuleset } from './uptaAgent';

test('flow counters from nft -j list set', () => {
  const json = JSON.stringify({
    nftables: [
      { metainfo: { version: '1.0.6' } },
      { set: { name: 'flows', elem: [{ elem: { val: { concat: ['udp', 40000] }, counter: { packets: 2, bytes: 2400 } } }, { elem: { val: { concat: ['tcp', 51000] }, counter: { packets: 1, bytes: 1500 } } }] } },
    ],
  });
  assert.deepEqual([...parseFlowCounters(json)], [['udp:40000', 2400], ['tcp:51000', 1500]]);
});

test('a sending TCP flow is elastic: the video share is what a fair link would give it', () => {
  // 600 kb/s, video at 287, two TCP flows that got only what the video left: share 200 each.
  const demands = [demandKbps('udp:1', 287), demandKbps('tcp:2', 156), demandKbps('tcp:3', 157)];
  assert.equal(maxMinShare(demands, 600), 200);
  // Ended TCP flows no longer count: the video fits.
  assert.equal(maxMinShare([demandKbps('udp:1', 287), demandKbps('tcp:2', 0.5)], 600), Number.POSITIVE_INFINITY);
});

test('the ruleset counts UDP and the bulk TCP flows leaving through the bottleneck', () => {
  const r = uptaRuleset('pv1s', 5201);
  assert.match(r, /oifname "pv1s" meta l4proto udp update @flows/);
  assert.match(r, /tcp sport 5201 update @flows/);
});
