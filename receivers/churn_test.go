package main

import (
	"math/rand"
	"testing"
	"time"
)

func TestParseStay(t *testing.T) {
	s, err := parseStay("5:60")
	if err != nil || s.min != 5*time.Second || s.max != 60*time.Second {
		t.Fatalf("5:60 gave %v %v", s, err)
	}
	for _, bad := range []string{"", "5", "0:10", "10:5", "a:b", "-1:3"} {
		if _, err := parseStay(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestStayDrawsWithinRange(t *testing.T) {
	s, _ := parseStay("5:60")
	rng := rand.New(rand.NewSource(1))
	lo, hi := s.max, s.min
	for i := 0; i < 2000; i++ {
		d := s.draw(rng)
		if d < s.min || d > s.max {
			t.Fatalf("draw %v outside [%v, %v]", d, s.min, s.max)
		}
		lo, hi = min(lo, d), max(hi, d)
	}
	// Spread over the range, not stuck at one end.
	if lo > 7*time.Second || hi < 58*time.Second {
		t.Fatalf("draws spread only over [%v, %v]", lo, hi)
	}
}
