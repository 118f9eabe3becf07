import assert from 'node:assert/strict';
import { test } from 'node:test';
import { capacityChangeCommands, parseBottleneckKind, queueDropRate, bottleneckCommands, bottleneckKindOf, defaultGreenQueueBytes, defaultQueuePackets, validateBottleneckOptions, BOTTLENECK_DEFAULTS } from './pelsBottleneck';

test('a capacity change rewrites the classes in place, and the video FIFOs\' limits only when given', () => {
  const base = { capacityKbps: 400, internetShare: 0.1, kind: 'pels' as const };
  const classes = capacityChangeCommands('eth0', base);
  assert.ok(classes.every((c) => c[0] === 'class' && c[1] === 'change'));
  assert.ok(classes.some((c) => c.includes('1:1') && c.includes('400kbit')));
  const withLimits = capacityChangeCommands('eth0', { ...base, queuePackets: 21, greenQueueBytes: 25000 });
  const limits = withLimits.filter((c) => c[0] === 'qdisc');
  assert.deepEqual(limits.map((c) => [c[1], c[7], c[8], c.at(-1)]), [['change', '11:', 'bfifo', '25000'], ['change', '12:', 'pfifo', '21']]);
  const fifo = capacityChangeCommands('eth0', { ...base, kind: 'fifo', queuePackets: 30 }).filter((c) => c[0] === 'qdisc');
  assert.deepEqual(fifo.map((c) => [c[7], c.at(-1)]), [['10:', '30']]);
});

test('the FIFO router puts all UDP in one drop-tail queue at the link rate, whatever the DSCP; random loss comes first', () => {
  const cmds = bottleneckCommands('eth0', { ...BOTTLENECK_DEFAULTS, capacityKbps: 1200, kind: 'fifo', queuePackets: 62, lossPct: 5 });
  const queues = cmds.filter((c) => c[0] === 'qdisc' && c.includes('pfifo'));
  assert.deepEqual(queues.map((c) => [c[5], c[7], c.at(-1)]), [['1:20', '20:', '100'], ['1:10', '10:', '62']]);
  const video = cmds.find((c) => c[0] === 'class' && c.includes('1:10'))!;
  assert.equal(video[video.indexOf('ceil') + 1], '1200kbit');
  assert.ok(!cmds.some((c) => c.includes('dsfield')), 'no DSCP classification');
  assert.ok(!cmds.some((c) => ['1:11', '1:12', '1:13'].includes(c[c.indexOf('classid') + 1]!)), 'no color classes');
  const filters = cmds.filter((c) => c[0] === 'filter');
  const udp = filters.find((c) => c.includes('protocol') && c.includes('17'))!;
  assert.equal(udp.at(-1), '1:10');
  const random = filters.find((c) => c.includes('bpf'))!;
  assert.equal(random.at(-1), '1:99');
  assert.ok(Number(random[random.indexOf('prio') + 1]) < Number(udp[udp.indexOf('prio') + 1]), 'random loss is classified before the queue');
});

test('router modes: PELS flows default to the PELS router, the others to the FIFO; names are checked', () => {
  assert.equal(bottleneckKindOf('pels'), 'pels');
  assert.equal(bottleneckKindOf('nack'), 'fifo');
  assert.equal(bottleneckKindOf('best-effort'), 'fifo');
  assert.equal(parseBottleneckKind('fifo'), 'fifo');
  assert.throws(() => parseBottleneckKind('best-effort'), /router must be one of pels, fifo; got "best-effort"/);
});

test('the congestion drop rate: queue drops over packets offered, the blackholes left out', () => {
  const counts = {
    green: { sent: 90, dropped: 0 },
    yellow: { sent: 80, dropped: 10 },
    red: { sent: 10, dropped: 30 },
    internet: { sent: 80, dropped: 0 },
    random: { sent: 0, dropped: 500 },
    upta: { sent: 0, dropped: 100 },
  };
  assert.equal(queueDropRate(counts), 40 / 300);
  assert.equal(queueDropRate({ video: { sent: 0, dropped: 0 }, random: { sent: 0, dropped: 7 } }), null);
});

test('the PELS router counts green\'s queue in bytes (the sound\'s small packets beside a keyframe burst), about 1 s of the link', () => {
  const queues = (o: { greenQueueBytes?: number }) =>
    bottleneckCommands('eth0', { ...BOTTLENECK_DEFAULTS, capacityKbps: 1400, kind: 'pels', queuePackets: defaultQueuePackets(1400), ...o })
      .filter((c) => c[0] === 'qdisc' && c[4] === 'parent')
      .map((c) => [c[7], c[8], c.at(-1)]);
  // 1400 kb/s: 1 s is 175000 bytes, as many as 146 full-size packets; yellow and red stay counted in packets.
  assert.equal(defaultGreenQueueBytes(1400), 175000);
  assert.equal(defaultQueuePackets(1400), 73);
  assert.deepEqual(queues({}), [['20:', 'pfifo', '100'], ['11:', 'bfifo', '175000'], ['12:', 'pfifo', '73'], ['13:', 'pfifo', '10']]);
  assert.deepEqual(queues({ greenQueueBytes: 30000 })[1], ['11:', 'bfifo', '30000']);
  // A slow link still holds 20 full-size packets of green.
  assert.equal(defaultGreenQueueBytes(100), 24000);
  const opts = { ...BOTTLENECK_DEFAULTS, capacityKbps: 1400, kind: 'pels' as const, queuePackets: 73 };
  assert.deepEqual(validateBottleneckOptions({ ...opts, greenQueueBytes: 1000 }), ['green queue limit must be an integer in [1500, 100000000] bytes; got 1000']);
  assert.deepEqual(validateBottleneckOptions(opts), []);
});
