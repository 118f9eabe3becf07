package main

import (
	"reflect"
	"testing"
	"time"
)

func TestRlmDriverAsksForTheColorsOfItsSubscription(t *testing.T) {
	start := time.Unix(1000, 0)
	d := newRlmDriver(start, 1)
	var asked [][]string
	var seq [3]int64
	at := start
	step := func(until time.Duration, lossyRed bool) {
		for ; at.Before(start.Add(until)); at = at.Add(50 * time.Millisecond) {
			for l := 0; l < max(1, d.rlm.subscription); l++ {
				seq[l]++
				if l == 2 && lossyRed && seq[l]%2 == 0 {
					continue // half of red lost: the path cannot carry it
				}
				d.onPacket(colors[l], seq[l], at)
			}
			if c := d.due(at); c != nil {
				asked = append(asked, c)
			}
		}
	}
	step(20*time.Second, true)
	d.markHold(at)
	step(120*time.Second, true)
	if len(asked) < 2 || !reflect.DeepEqual(asked[:2], [][]string{{"green", "yellow"}, {"green", "yellow", "red"}}) {
		t.Fatalf("asked %v: want yellow added, then red", asked)
	}
	if !reflect.DeepEqual(asked[len(asked)-1], []string{"green", "yellow"}) {
		t.Fatalf("asked %v: want red left, the path cannot carry it", asked)
	}
	r := d.report(at)
	if r.Drops == 0 || r.Subscription != 2 || r.SetColors != len(asked) {
		t.Fatalf("report %+v, %d requests", r, len(asked))
	}
	// Over the hold the receiver asked for two colors, and three during its failed experiments.
	if r.MeanColors < 2 || r.MeanColors > 2.5 {
		t.Fatalf("mean colors %v", r.MeanColors)
	}
}
