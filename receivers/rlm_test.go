package main

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// The vectors the TypeScript suite replays too (shared/src/rlm/rlmVectors.ts).
type rlmCheck struct {
	After           int       `json:"after"`
	State           string    `json:"state"`
	Subscription    int       `json:"subscription"`
	NextWakeMs      float64   `json:"nextWakeMs"`
	JoinTimerMs     []float64 `json:"joinTimerMs"`
	DetectMs        float64   `json:"detectMs"`
	DetectVarMs     float64   `json:"detectVarMs"`
	Adds            int       `json:"adds"`
	Drops           int       `json:"drops"`
	PacketsReceived int       `json:"packetsReceived"`
	PacketsLost     int       `json:"packetsLost"`
}

type rlmCase struct {
	Name    string              `json:"name"`
	Params  rlmParams           `json:"params"`
	StartMs float64             `json:"startMs"`
	Random  []float64           `json:"random"`
	Events  [][]json.RawMessage `json:"events"`
	Checks  []rlmCheck          `json:"checks"`
}

func num(t *testing.T, raw json.RawMessage) float64 {
	var x float64
	if err := json.Unmarshal(raw, &x); err != nil {
		t.Fatal(err)
	}
	return x
}

func TestRlmReplaysTheSharedVectors(t *testing.T) {
	data, err := os.ReadFile("../shared/src/rlm/rlmVectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Cases []rlmCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) != 4 {
		t.Fatalf("%d cases, want 4", len(v.Cases))
	}
	for _, c := range v.Cases {
		t.Run(c.Name, func(t *testing.T) {
			i := 0
			random := func() float64 { x := c.Random[i%len(c.Random)]; i++; return x }
			r := newRlmReceiver(c.Params, random, c.StartMs, nil)
			next := 0
			for k, e := range c.Events {
				var op string
				if err := json.Unmarshal(e[0], &op); err != nil {
					t.Fatal(err)
				}
				at := num(t, e[1])
				switch op {
				case "t":
					r.tick(at)
				case "p":
					r.onPacket(int(num(t, e[2])), int64(num(t, e[3])), at)
				case "r":
					r.onReport(int(num(t, e[2])), int(num(t, e[3])), int(num(t, e[4])), at)
				case "a":
					r.onAnnounce(int(num(t, e[2])), at)
				default:
					t.Fatalf("unknown input %q", op)
				}
				for next < len(c.Checks) && c.Checks[next].After == k+1 {
					want := c.Checks[next]
					next++
					got := rlmCheck{After: k + 1, State: r.state, Subscription: r.subscription, NextWakeMs: r.nextWakeMs(),
						JoinTimerMs: r.joinTimerMs[1 : len(r.joinTimerMs)-1], DetectMs: r.detectMs, DetectVarMs: r.detectVarMs,
						Adds: r.adds, Drops: r.drops, PacketsReceived: r.received, PacketsLost: r.lost}
					near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
					ok := got.State == want.State && got.Subscription == want.Subscription && near(got.NextWakeMs, want.NextWakeMs) &&
						near(got.DetectMs, want.DetectMs) && near(got.DetectVarMs, want.DetectVarMs) && got.Adds == want.Adds &&
						got.Drops == want.Drops && got.PacketsReceived == want.PacketsReceived && got.PacketsLost == want.PacketsLost &&
						len(got.JoinTimerMs) == len(want.JoinTimerMs)
					for j := range want.JoinTimerMs {
						ok = ok && j < len(got.JoinTimerMs) && near(got.JoinTimerMs[j], want.JoinTimerMs[j])
					}
					if !ok {
						t.Fatalf("after input %d:\n got %+v\nwant %+v", k+1, got, want)
					}
				}
			}
			if next != len(c.Checks) {
				t.Fatalf("%d of %d checks reached", next, len(c.Checks))
			}
		})
	}
}
