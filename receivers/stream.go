package main

import "time"

// Frames still incomplete when this many newer ones have started are given up:
// at 30 frames a second that is about 2 s, longer than any retransmission takes.
const maxPendingFrames = 64

// seqWindow is how far back (in packets) a late or retransmitted packet is
// still recognised as a duplicate or a repair.
const seqWindow = 1 << 13

// colorCounts is what one color stream delivered: packets, loss and jitter as
// RFC 3550 defines them for a receiver report, counted after repair (a packet
// retransmitted in time is not lost).
type colorCounts struct {
	Packets   int64   `json:"packets"`
	Expected  int64   `json:"expected"`
	Lost      int64   `json:"lost"`
	JitterMs  float64 `json:"jitterMs"`
	Bytes     int64   `json:"bytes"`
	Duplicate int64   `json:"duplicates"`
}

// layerCounts is what one temporal layer delivered, in whole VP8 frames.
type layerCounts struct {
	Complete   int64 `json:"complete"`
	Incomplete int64 `json:"incomplete"`
	Keyframes  int64 `json:"keyframes"`
}

// completedFrame describes a frame all of whose packets arrived.
type completedFrame struct {
	TID       int
	TL0PicIdx int
	Keyframe  bool
}

type pendingFrame struct {
	timestamp         uint32
	order             int64
	first, last       int64
	hasFirst, hasLast bool
	packets           map[int64]struct{}
	desc              vp8Descriptor
	hasDesc           bool
}

// streamReceiver follows one RTP stream (one SSRC, RTX already unwrapped):
// sequence numbers, loss, jitter, and the VP8 frames it completes.
type streamReceiver struct {
	clockRate float64
	started   bool
	baseSeq   int64
	highest   int64
	seen      []bool // by extended sequence number modulo seqWindow
	counts    colorCounts

	jitter      float64 // in timestamp units
	lastTransit float64
	hasTransit  bool

	pending    map[uint32]*pendingFrame
	frameOrder int64
	onFrame    func(completedFrame)
	onGiveUp   func(tid int)
}

func newStreamReceiver(clockRate int, onFrame func(completedFrame), onGiveUp func(tid int)) *streamReceiver {
	return &streamReceiver{
		clockRate: float64(clockRate),
		seen:      make([]bool, seqWindow),
		pending:   map[uint32]*pendingFrame{},
		onFrame:   onFrame,
		onGiveUp:  onGiveUp,
	}
}

// extend maps a 16-bit sequence number to the extended one nearest the highest so far.
func (s *streamReceiver) extend(seq uint16) int64 {
	if !s.started {
		return int64(seq)
	}
	cycle := s.highest &^ 0xffff
	ext := cycle | int64(seq)
	switch {
	case ext-s.highest > 0x8000:
		ext -= 0x10000
	case s.highest-ext > 0x8000:
		ext += 0x10000
	}
	return ext
}

// onPacket takes one RTP packet arriving at `at`.
func (s *streamReceiver) onPacket(seq uint16, timestamp uint32, marker bool, payload []byte, size int, at time.Time) {
	ext := s.extend(seq)
	if !s.started {
		s.started = true
		s.baseSeq = ext
		s.highest = ext - 1
	}
	if ext <= s.highest-seqWindow || ext < s.baseSeq {
		return // too old to tell apart from a duplicate
	}
	if ext > s.highest {
		from := max(s.highest+1, ext-seqWindow+1)
		for q := from; q <= ext; q++ {
			s.seen[q%seqWindow] = false
		}
		s.highest = ext
	}
	if s.seen[ext%seqWindow] {
		s.counts.Duplicate++
		return
	}
	s.seen[ext%seqWindow] = true
	s.counts.Packets++
	s.counts.Bytes += int64(size)

	// RFC 3550 A.8: interarrival jitter in timestamp units.
	transit := float64(at.UnixNano())/1e9*s.clockRate - float64(timestamp)
	if s.hasTransit {
		d := transit - s.lastTransit
		if d < 0 {
			d = -d
		}
		// A wrapped timestamp shows as a jump of about 2^32: not jitter.
		if d < 1<<31 {
			s.jitter += (d - s.jitter) / 16
		}
	}
	s.lastTransit, s.hasTransit = transit, true

	s.onVP8(ext, timestamp, marker, payload)
}

func (s *streamReceiver) onVP8(ext int64, timestamp uint32, marker bool, payload []byte) {
	desc, err := parseVP8Descriptor(payload)
	if err != nil {
		return
	}
	f := s.pending[timestamp]
	if f == nil {
		s.frameOrder++
		f = &pendingFrame{timestamp: timestamp, order: s.frameOrder, packets: map[int64]struct{}{}}
		s.pending[timestamp] = f
		s.evictOld()
	}
	f.packets[ext] = struct{}{}
	if !f.hasDesc || desc.Start {
		f.desc, f.hasDesc = desc, true
	}
	if desc.Start {
		f.first, f.hasFirst = ext, true
	}
	if marker {
		f.last, f.hasLast = ext, true
	}
	if f.hasFirst && f.hasLast && int64(len(f.packets)) == f.last-f.first+1 {
		delete(s.pending, timestamp)
		s.onFrame(completedFrame{TID: f.desc.TID, TL0PicIdx: f.desc.TL0PicIdx, Keyframe: f.desc.Keyframe})
	}
}

func (s *streamReceiver) evictOld() {
	for ts, f := range s.pending {
		if s.frameOrder-f.order >= maxPendingFrames {
			delete(s.pending, ts)
			s.onGiveUp(f.desc.TID)
		}
	}
}

// snapshot is the stream's counts so far.
func (s *streamReceiver) snapshot() colorCounts {
	c := s.counts
	if s.started {
		c.Expected = s.highest - s.baseSeq + 1
		c.Lost = c.Expected - c.Packets
	}
	c.JitterMs = s.jitter / s.clockRate * 1000
	return c
}

// plus adds later counts to these (jitter is the later one's).
func (c colorCounts) plus(later colorCounts) colorCounts {
	return colorCounts{
		Packets:   c.Packets + later.Packets,
		Expected:  c.Expected + later.Expected,
		Lost:      c.Lost + later.Lost,
		JitterMs:  later.JitterMs,
		Bytes:     c.Bytes + later.Bytes,
		Duplicate: c.Duplicate + later.Duplicate,
	}
}

// minus gives the counts between an earlier snapshot and this one (jitter is the later one's).
func (c colorCounts) minus(earlier colorCounts) colorCounts {
	return colorCounts{
		Packets:   c.Packets - earlier.Packets,
		Expected:  c.Expected - earlier.Expected,
		Lost:      c.Lost - earlier.Lost,
		JitterMs:  c.JitterMs,
		Bytes:     c.Bytes - earlier.Bytes,
		Duplicate: c.Duplicate - earlier.Duplicate,
	}
}
