package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// stayRange is how long each churning receiver stays once it has joined.
type stayRange struct{ min, max time.Duration }

// parseStay reads "MIN:MAX" in seconds, e.g. "5:60".
func parseStay(s string) (stayRange, error) {
	lo, hi, ok := strings.Cut(s, ":")
	a, errA := strconv.ParseFloat(lo, 64)
	b, errB := strconv.ParseFloat(hi, 64)
	if !ok || errA != nil || errB != nil || a <= 0 || b < a {
		return stayRange{}, fmt.Errorf("bad --stay %q: want MIN:MAX seconds, 0 < MIN <= MAX", s)
	}
	return stayRange{time.Duration(a * float64(time.Second)), time.Duration(b * float64(time.Second))}, nil
}

func (s stayRange) draw(rng *rand.Rand) time.Duration {
	return s.min + time.Duration(rng.Int63n(int64(s.max-s.min)+1))
}

// lifeReport is one churning receiver's life: its counts from its first
// keyframe to its leaving, and when each happened (Unix ms), so a caller can
// set lives beside its own events (faults) and leave out those that overlap.
type lifeReport struct {
	Event     string `json:"event"`
	StartedMs int64  `json:"startedMs"`
	// JoinedMs is 0 when the receiver failed to join.
	JoinedMs int64 `json:"joinedMs"`
	LeftMs   int64 `json:"leftMs"`
	// Cut: the run ended before the stay did.
	Cut bool `json:"cut"`
	receiverReport
}

// runChurn keeps n receivers coming and going until ctx ends: each joins,
// stays a random time from stay, leaves, and its slot starts a new one. Each
// life is written to out as one JSON line when it ends.
func runChurn(ctx context.Context, opts receiverOptions, n int, ramp float64, stay stayRange, out *os.File) {
	var mu sync.Mutex // one line at a time
	enc := json.NewEncoder(out)
	var wg sync.WaitGroup
	for slot := 0; slot < n; slot++ {
		wg.Add(1)
		go func(slot int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(time.Now().UnixNano() + int64(slot)))
			select {
			case <-time.After(time.Duration(float64(slot) / ramp * float64(time.Second))):
			case <-ctx.Done():
				return
			}
			for life := 0; ctx.Err() == nil; life++ {
				rep := live(ctx, opts, slot+life*n, stay.draw(rng))
				mu.Lock()
				_ = enc.Encode(rep)
				mu.Unlock()
			}
		}(slot)
	}
	wg.Wait()
}

// live runs one receiver: join, stay, leave.
func live(ctx context.Context, opts receiverOptions, index int, stay time.Duration) lifeReport {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := newReceiver(index, opts)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.run(rctx)
	}()
	joined := false
	for !joined {
		r.mu.Lock()
		failed, at := r.err != nil, r.joinedAt
		r.mu.Unlock()
		if failed || ctx.Err() != nil {
			break
		}
		joined = !at.IsZero()
		if !joined {
			time.Sleep(50 * time.Millisecond)
		}
	}
	cut := ctx.Err() != nil
	if joined {
		r.markHold()
		select {
		case <-time.After(stay):
		case <-ctx.Done():
			cut = true
		}
	}
	rep := lifeReport{Event: "left", LeftMs: time.Now().UnixMilli(), Cut: cut, receiverReport: r.report()}
	r.mu.Lock()
	rep.StartedMs = r.startedAt.UnixMilli()
	if !r.joinedAt.IsZero() {
		rep.JoinedMs = r.joinedAt.UnixMilli()
	}
	r.mu.Unlock()
	cancel()
	r.close()
	<-done
	return rep
}
