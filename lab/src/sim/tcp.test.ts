import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventQueue } from './eventQueue';
import { Link } from './links';
import { TcpReceiver, TcpSender, type TcpFlavour } from './tcp';

/** One Reno flow over a drop-tail link; ACKs come back after a fixed delay. */
function transfer(segments: number, queue: number, flavour: TcpFlavour = 'reno') {
  const events = new EventQueue();
  const receiver = new TcpReceiver();
  let sender: TcpSender;
  const link = new Link<{ bytes: number; seq: number }>(events, { rateKbps: 1000, delayMs: 10, limitPackets: queue }, (p) => {
    const ack = receiver.onSegment(p.seq, p.bytes);
    events.after(10, () => sender.onAck(ack));
  });
  sender = new TcpSender(events, { flavour, segmentBytes: 1000, payloadBytes: 960, windowSegments: 64, initialCwnd: 1, minRtoMs: 200, initialRtoMs: 1000, segments }, (seq, bytes) => link.send({ seq, bytes }));
  sender.start();
  events.runUntil(600_000);
  return { sender, receiver, link };
}

test('a Reno transfer delivers every segment in order and fills the link', () => {
  const { sender, receiver, link } = transfer(1000, 10);
  assert.equal(receiver.delivered, 1000);
  assert.ok(link.dropped > 0, 'the window outgrew the queue');
  assert.ok(sender.retransmits >= link.dropped);
  // 1000 segments of 8 kbit at 1 Mb/s take 8 s at full rate; Reno's halvings cost little with a queue.
  assert.ok(sender.doneAtMs! < 8000 * 1.25, `done at ${sender.doneAtMs} ms`);
});

test('a tiny queue forces timeouts, and the transfer still completes', () => {
  const { receiver, sender } = transfer(300, 2);
  assert.equal(receiver.delivered, 300);
  assert.ok(sender.timeouts > 0, 'no timeout');
  assert.ok(sender.doneAtMs !== undefined);
});

test('Tahoe restarts from one segment on three duplicate ACKs and still delivers everything', () => {
  const reno = transfer(1000, 10, 'reno');
  const tahoe = transfer(1000, 10, 'tahoe');
  assert.equal(tahoe.receiver.delivered, 1000);
  assert.ok(tahoe.sender.doneAtMs! > reno.sender.doneAtMs!, `tahoe ${tahoe.sender.doneAtMs} reno ${reno.sender.doneAtMs}`);
});
