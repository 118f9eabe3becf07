package main

import (
	"testing"
	"time"
)

// packet builds a VP8 RTP payload with the server's descriptor.
func vp8Payload(start bool, tid, tl0 int, keyframe bool) []byte {
	b0 := byte(0x80)
	if start {
		b0 |= 0x10
	}
	hdr := byte(0x01)
	if keyframe {
		hdr = 0x00
	}
	return []byte{b0, 0xe0, 0x80, 0x01, byte(tl0), byte(tid << 6), hdr, 0xaa}
}

type sent struct {
	seq      uint16
	ts       uint32
	marker   bool
	start    bool
	tid, tl0 int
	key      bool
}

// frames of n packets each, consecutive sequence numbers from seq0.
func framesOf(seq0 uint16, count, perFrame int) []sent {
	var out []sent
	seq := seq0
	for f := 0; f < count; f++ {
		for k := 0; k < perFrame; k++ {
			out = append(out, sent{seq: seq, ts: uint32(3000 * f), marker: k == perFrame-1, start: k == 0, tid: 0, tl0: f % 256, key: f == 0})
			seq++
		}
	}
	return out
}

func TestStreamReceiverCountsLossFramesAndRepairs(t *testing.T) {
	var done []completedFrame
	var givenUp int
	s := newStreamReceiver(90000, func(f completedFrame) { done = append(done, f) }, func(int) { givenUp++ })
	pkts := framesOf(65530, 130, 3) // wraps the sequence number
	at := time.Unix(1000, 0)
	feed := func(p sent) {
		s.onPacket(p.seq, p.ts, p.marker, vp8Payload(p.start, p.tid, p.tl0, p.key), 100, at)
	}
	lostIdx := 31   // frame 10's second packet: lost, then repaired
	neverIdx := 151 // frame 50's second packet: lost for good
	for i, p := range pkts {
		if i == lostIdx || i == neverIdx {
			continue
		}
		feed(p)
		if i == lostIdx+5 {
			feed(pkts[lostIdx]) // the retransmission, late
			feed(pkts[lostIdx]) // and a duplicate of it
		}
	}
	c := s.snapshot()
	if c.Expected != 390 || c.Packets != 389 || c.Lost != 1 || c.Duplicate != 1 {
		t.Fatalf("counts %+v", c)
	}
	if len(done) != 129 || !done[0].Keyframe || done[0].TID != 0 {
		t.Fatalf("%d frames completed, first %+v", len(done), done[0])
	}
	if givenUp != 1 {
		t.Fatalf("frames given up: %d", givenUp)
	}
}

func TestStreamReceiverJitter(t *testing.T) {
	s := newStreamReceiver(90000, func(completedFrame) {}, func(int) {})
	base := time.Unix(1000, 0)
	// One packet per frame, 33.3 ms apart, arriving alternately 0 and 10 ms late.
	for i := 0; i < 200; i++ {
		late := time.Duration(i%2) * 10 * time.Millisecond
		s.onPacket(uint16(i), uint32(3000*i), true, vp8Payload(true, 0, i, false), 100, base.Add(time.Duration(i)*time.Second/30+late))
	}
	if j := s.snapshot().JitterMs; j < 9 || j > 11 {
		t.Fatalf("jitter %.2f ms, want about 10", j)
	}
}

func TestFrameSpanUnwrapsAndCountsSince(t *testing.T) {
	s := newFrameSpan(8)
	for n := 250; n < 250+20; n++ {
		if n != 260 {
			s.add(n % 256)
		}
	}
	mark := s.highest()
	for n := 270; n < 280; n++ {
		if n != 275 {
			s.add(n % 256)
		}
	}
	if r, total := s.since(nil); r != 28 || total != 30 {
		t.Fatalf("since start: %d of %d", r, total)
	}
	if r, total := s.since(mark); r != 9 || total != 10 {
		t.Fatalf("since mark: %d of %d", r, total)
	}
}
