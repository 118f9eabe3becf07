import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseUdpSnmp, udpCountersSince } from './udpCounters';

const SNMP = `Ip: Forwarding DefaultTTL InReceives
Ip: 1 64 100
Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti MemErrors
Udp: 5000 3 42 10 40 0 2 0 0
UdpLite: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti MemErrors
UdpLite: 0 0 0 0 0 0 0 0 0
`;

test('reads UDP receive-buffer drops from /proc/net/snmp by column name, not UdpLite', () => {
  assert.deepEqual(parseUdpSnmp(SNMP), { inDatagrams: 5000, rcvbufErrors: 40, inErrors: 42 });
});

test('a file without UDP counters is an error, not zeros', () => {
  assert.throws(() => parseUdpSnmp('Ip: Forwarding\nIp: 1\n'), /no Udp lines/);
  assert.throws(() => parseUdpSnmp('Udp: InDatagrams\nUdp: 5\n'), /no Udp RcvbufErrors/);
});

test('counts over a run are the difference of two reads', () => {
  const a = { inDatagrams: 10, rcvbufErrors: 1, inErrors: 1 };
  assert.deepEqual(udpCountersSince(a, { inDatagrams: 110, rcvbufErrors: 6, inErrors: 7 }), { inDatagrams: 100, rcvbufErrors: 5, inErrors: 6 });
});
