package main

import (
	"encoding/json"
	"errors"
	"os"
	"testing"
	"time"
)

// sampleReports are the three shapes of output with every field filled in: a
// run's report (one receiver with the server's view and RLM, one that failed)
// and a churning receiver's life.
func sampleReports() []any {
	full := newReceiver(0, receiverOptions{})
	full.startedAt = time.Now().Add(-2 * time.Second)
	full.joinedAt = time.Now().Add(-time.Second)
	for ssrc, c := range map[uint32]string{1: "green", 2: "yellow", 3: "red"} {
		full.colorOf[ssrc] = c
		full.streams[ssrc] = newStreamReceiver(90000, full.onFrame(c), full.onGiveUp)
	}
	rtt, transport := 12.5, "udp"
	full.hasServer = true
	full.server = serverView{ID: "v-1", RttMs: &rtt, RateKbps: 900, Mode: "pels", Transport: &transport, FeedbackSteps: 7}
	full.rlm = newRlmDriver(time.Now(), 1)
	full.markHold()
	back := 2100.0
	full.edge = "edge-2"
	full.rejoins = []*rejoinReport{{LostAtMs: time.Now().UnixMilli(), Ms: &back, From: "edge-1", To: "edge-2", Attempts: 3}}

	failed := newReceiver(1, receiverOptions{})
	failed.startedAt = time.Now()
	failed.err = errors.New("join: unavailable")

	run := runReport{Viewers: 2, RampPerSecond: 10, HoldSeconds: 1, CPUSeconds: 0.5, MaxRSSMb: 40, Receivers: []receiverReport{full.report(), failed.report()}}
	life := lifeReport{Event: "left", StartedMs: full.startedAt.UnixMilli(), JoinedMs: full.joinedAt.UnixMilli(), LeftMs: time.Now().UnixMilli(), receiverReport: full.report()}
	return []any{run, life}
}

// TestReportJSONSample writes the sample reports as JSON lines to the file
// PELS_REPORT_SAMPLE names: the load test's own test reads them with its
// schemas (shared/src/protocol/syntheticReceivers.ts), so a field added,
// renamed or retyped on either side fails there.
func TestReportJSONSample(t *testing.T) {
	var lines []byte
	for _, r := range sampleReports() {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(append(lines, b...), '\n')
	}
	if out := os.Getenv("PELS_REPORT_SAMPLE"); out != "" {
		if err := os.WriteFile(out, lines, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
