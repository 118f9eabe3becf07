package main

// frameSpan numbers frames by a wrapping counter (TL0PICIDX, 8 bits),
// unwrapped, and keeps which numbers completed, so the
// frames received over an interval can be set against the frames the
// numbering says were sent in it.
type frameSpan struct {
	modulus  int64
	started  bool
	last     int64 // highest unwrapped number seen
	first    int64
	complete map[int64]struct{}
}

func newFrameSpan(bits uint) frameSpan {
	return frameSpan{modulus: 1 << bits, complete: map[int64]struct{}{}}
}

// add records a complete frame's number (modulo the counter's range).
func (s *frameSpan) add(n int) {
	if n < 0 {
		return
	}
	v := int64(n) % s.modulus
	if !s.started {
		s.started, s.first, s.last = true, v, v
	} else {
		v += s.last - s.last%s.modulus
		switch {
		case v-s.last > s.modulus/2:
			v -= s.modulus
		case s.last-v > s.modulus/2:
			v += s.modulus
		}
		if v > s.last {
			s.last = v
		}
	}
	s.complete[v] = struct{}{}
}

// highest is the highest number seen, or nil before the first frame.
func (s *frameSpan) highest() *int64 {
	if !s.started {
		return nil
	}
	h := s.last
	return &h
}

// since counts the frames numbered after `from` up to the highest: received
// (complete) and sent (by the numbering). With from nil, from the first frame.
func (s *frameSpan) since(from *int64) (received, sent int64) {
	if !s.started {
		return 0, 0
	}
	lo := s.first
	if from != nil {
		lo = *from + 1
	}
	if s.last < lo {
		return 0, 0
	}
	for n := range s.complete {
		if n >= lo && n <= s.last {
			received++
		}
	}
	return received, s.last - lo + 1
}
