import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTestbedArgs, UsageError } from './options';

const parse = (...argv: string[]) => {
  const o = parseTestbedArgs(argv);
  assert.notEqual(o, 'help');
  return o as Exclude<typeof o, 'help'>;
};

test('--router: absent leaves the mode\'s own router; pels or fifo with any mode; needs a bottleneck', () => {
  assert.equal(parse('--capacity-kbps', '1200').router, undefined);
  assert.equal(parse('--capacity-kbps', '1200', '--router', 'fifo').router, 'fifo');
  assert.equal(parse('--capacity-kbps', '1200', '--mode', 'nack', '--router', 'pels').router, 'pels');
  assert.throws(() => parse('--capacity-kbps', '1200', '--router', 'red'), (e: Error) => e instanceof UsageError && /--router must be one of pels, fifo; got "red"/.test(e.message));
  assert.throws(() => parse('--router', 'fifo'), /--router needs a bottleneck: give --capacity-kbps/);
});

test('TCP in the video FIFO needs the FIFO router, whatever the mode', () => {
  assert.throws(() => parse('--capacity-kbps', '1200', '--tcp', '1', '--tcp-queue', 'shared'), /needs the FIFO router/);
  assert.throws(() => parse('--capacity-kbps', '1200', '--mode', 'nack', '--router', 'pels', '--tcp', '1', '--tcp-queue', 'shared'), /needs the FIFO router/);
  assert.equal(parse('--capacity-kbps', '1200', '--router', 'fifo', '--tcp', '1', '--tcp-queue', 'shared').tcp?.queue, 'shared');
});

test('random loss needs the router that applies it; unknown flags are usage errors', () => {
  assert.equal(parse('--capacity-kbps', '2000', '--loss', '10').lossPct, 10);
  assert.equal(parse('--loss', '0').lossPct, 0);
  assert.throws(() => parse('--loss', '10'), /--loss needs a bottleneck/);
  assert.throws(() => parse('--rooter', 'fifo'), UsageError);
  assert.equal(parseTestbedArgs(['--help']), 'help');
});

test('--ingest: rtmp, srt or whip; anything else is a usage error', () => {
  assert.equal(parse('--ingest', 'srt').ingest, 'srt');
  assert.equal(parse('--ingest', 'whip').ingest, 'whip');
  assert.equal(parse().ingest, undefined);
  assert.throws(() => parse('--ingest', 'rtsp'), (e: Error) => e instanceof UsageError && /--ingest must be rtmp, srt or whip; got "rtsp"/.test(e.message));
});

test('--green-queue-bytes: absent leaves the router its default (about 1 s of the link); at least one full-size packet', () => {
  assert.equal(parse('--capacity-kbps', '1400').greenQueueBytes, undefined);
  assert.equal(parse('--capacity-kbps', '1400', '--green-queue-bytes', '40000').greenQueueBytes, 40000);
  assert.throws(() => parse('--capacity-kbps', '1400', '--green-queue-bytes', '1000'), /--green-queue-bytes must be an integer in \[1500, 100000000\]; got "1000"/);
});

test('--edges: a cluster of 1 to 8 edges; --kill-edge needs two edges and a time inside the run; one-server options refused', () => {
  assert.equal(parse().edges, 0);
  assert.equal(parse('--edges', '2').edges, 2);
  assert.equal(parse('--edges', '2', '--kill-edge', '20', '--seconds', '40').killEdgeS, 20);
  assert.equal(parse('--edges', '2').killEdgeS, undefined);
  assert.throws(() => parse('--edges', '9'), /--edges must be an integer in \[0, 8\]; got "9"/);
  assert.throws(() => parse('--edges', '1', '--kill-edge', '10'), /--kill-edge needs an edge for its viewers to go to/);
  assert.throws(() => parse('--edges', '2', '--kill-edge', '30', '--seconds', '30'), /--kill-edge must be an integer in \[1, 29\]/);
  assert.throws(() => parse('--edges', '2', '--ingest', 'rtmp'), /--ingest does not go with --edges yet/);
  assert.throws(() => parse('--edges', '2', '--capacity-kbps', '2000', '--feedback', 'router'), /--feedback router does not go with --edges yet/);
  assert.equal(parse('--edges', '2', '--capacity-kbps', '2000').capacityKbps, 2000);
});

test('--capture: a file for the viewers\' namespace, so it needs a bottleneck', () => {
  assert.match(parse('--capacity-kbps', '700', '--capture', '/tmp/v.pcap').captureFile ?? '', /\/tmp\/v\.pcap$/);
  assert.equal(parse('--capacity-kbps', '700').captureFile, undefined);
  assert.throws(() => parse('--capture', '/tmp/v.pcap'), /--capture needs a bottleneck/);
});
