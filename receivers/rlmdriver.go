package main

import (
	"math/rand"
	"time"
)

// rlmReport is what a receiver in RLM mode did over the hold.
type rlmReport struct {
	// Subscription: layers RLM holds at the end (0: it left the base layer, which the server keeps sending).
	Subscription int `json:"subscription"`
	Adds         int `json:"adds"`
	Drops        int `json:"drops"`
	// MeanColors: colors asked for, averaged over the hold's time.
	MeanColors float64 `json:"meanColors"`
	// SetColors: the requests made (all of the run), and those the server refused or did not answer.
	SetColors       int `json:"setColors"`
	SetColorsFailed int `json:"setColorsFailed"`
}

// rlmDriver runs the RLM machine in a synthetic receiver (--rx rlm), as the
// player does (client/src/player/rlmDriver.ts): green is layer 1, yellow 2,
// red 3; it sees each packet with its stream's extended sequence number, and
// the subscription it chooses becomes the colors asked for (at least green,
// which the server never stops). Not safe for concurrent use: the receiver's
// mutex guards it.
type rlmDriver struct {
	rlm     *rlmReceiver
	start   time.Time
	asked   int
	askedAt time.Time
	// askedMs: time spent asking for 1, 2 and 3 colors since the hold began (index 0 unused).
	askedMs         [4]float64
	holdAt          time.Time
	setColors       int
	setColorsFailed int
}

func newRlmDriver(start time.Time, seed int64) *rlmDriver {
	random := rand.New(rand.NewSource(seed))
	return &rlmDriver{rlm: newRlmReceiver(rlmDefaults(len(colors)), random.Float64, 0, nil), start: start, asked: 1, askedAt: start}
}

func (d *rlmDriver) ms(at time.Time) float64 {
	return float64(at.Sub(d.start)) / float64(time.Millisecond)
}

func (d *rlmDriver) onPacket(color string, ext int64, at time.Time) {
	for i, c := range colors {
		if c == color {
			d.rlm.onPacket(i+1, ext, d.ms(at))
		}
	}
}

// due runs the timers that came due by `at`; it returns the colors to ask for when they changed, else nil.
func (d *rlmDriver) due(at time.Time) []string {
	now := d.ms(at)
	for d.rlm.nextWakeMs() <= now {
		d.rlm.tick(d.rlm.nextWakeMs())
	}
	want := max(1, d.rlm.subscription)
	if want == d.asked {
		return nil
	}
	d.account(at)
	d.asked = want
	d.setColors++
	return append([]string(nil), colors[:want]...)
}

// account adds the time since the last change to the colors asked for then (only within the hold).
func (d *rlmDriver) account(at time.Time) {
	if !d.holdAt.IsZero() {
		from := d.askedAt
		if from.Before(d.holdAt) {
			from = d.holdAt
		}
		if at.After(from) {
			d.askedMs[d.asked] += float64(at.Sub(from)) / float64(time.Millisecond)
		}
	}
	d.askedAt = at
}

func (d *rlmDriver) markHold(at time.Time) {
	d.account(at)
	d.holdAt = at
	d.askedMs = [4]float64{}
}

func (d *rlmDriver) report(at time.Time) *rlmReport {
	d.account(at)
	total, weighted := 0.0, 0.0
	for n, ms := range d.askedMs {
		total += ms
		weighted += float64(n) * ms
	}
	mean := 0.0
	if total > 0 {
		mean = weighted / total
	}
	return &rlmReport{Subscription: d.rlm.subscription, Adds: d.rlm.adds, Drops: d.rlm.drops, MeanColors: mean, SetColors: d.setColors, SetColorsFailed: d.setColorsFailed}
}
