package main

import (
	"context"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A receiver that moves to another edge during the hold reports the hold's counts of both edges: the
// first edge's from the hold's start to its loss, the second's from its first frame.
func TestRetireKeepsTheHoldsCountsAcrossEdges(t *testing.T) {
	r := newReceiver(0, receiverOptions{front: "http://front"})
	first := newStreamReceiver(90000, r.onFrame("green"), r.onGiveUp)
	r.colorOf[1], r.streams[1] = "green", first
	for n := 0; n <= 5; n++ {
		r.green.add(n)
	}
	first.counts.Packets, first.counts.Bytes = 10, 1000
	r.server, r.hasServer = serverView{}, true
	r.server.FramesSent.Tid0 = 40
	r.markHold()
	for n := 6; n <= 9; n++ {
		r.green.add(n)
	}
	r.green.add(11) // 10 lost
	first.counts.Packets, first.counts.Bytes = 25, 2500
	r.server.FramesSent.Tid0 = 70
	r.retire()

	second := newStreamReceiver(90000, r.onFrame("green"), r.onGiveUp)
	r.colorOf[7], r.streams[7] = "green", second
	for n := 200; n < 205; n++ {
		r.green.add(n)
	}
	second.counts.Packets, second.counts.Bytes = 7, 700
	r.server, r.hasServer = serverView{}, true
	r.server.FramesSent.Tid0 = 12

	rep := r.report()
	if rep.Green.Received != 5+5 || rep.Green.Sent != 6+5 {
		t.Fatalf("green %+v, want 10 of 11", rep.Green)
	}
	if g := rep.Colors["green"]; g.Packets != 15+7 || g.Bytes != 1500+700 {
		t.Fatalf("green color %+v, want 22 packets, 2200 bytes", g)
	}
	if rep.Server == nil || rep.Server.FramesSent != 30+12 {
		t.Fatalf("server %+v, want 42 frames sent", rep.Server)
	}
}

// Before the hold an edge's counts are the warm-up's: a loss then leaves nothing in the hold's report.
func TestRetireBeforeTheHoldCountsNothing(t *testing.T) {
	r := newReceiver(0, receiverOptions{front: "http://front"})
	s := newStreamReceiver(90000, r.onFrame("green"), r.onGiveUp)
	r.colorOf[1], r.streams[1] = "green", s
	r.green.add(3)
	s.counts.Packets = 9
	r.retire()
	r.markHold()
	rep := r.report()
	if rep.Green.Sent != 0 || rep.Colors["green"].Packets != 0 {
		t.Fatalf("report %+v, want nothing counted", rep)
	}
}

func TestPlaceEdgeAsksTheFrontForTheStreamExcludingLostEdges(t *testing.T) {
	var asked string
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		asked = req.URL.RequestURI()
		switch req.URL.Query().Get("stream") {
		case "full":
			http.Error(w, `{"error":"unavailable"}`, http.StatusServiceUnavailable)
		case "old":
			_, _ = w.Write([]byte(`{"node":"edge-2","url":"http://10.0.0.12:8080/?stream=old"}`))
		default:
			_, _ = w.Write([]byte(`{"node":"edge-2","url":"http://10.0.0.12:8080/?stream=s1","ws":"ws://10.0.0.12:8080/ws"}`))
		}
	}))
	defer front.Close()
	node, ws, err := placeEdge(context.Background(), front.URL, "s1", []string{"edge-1", "edge-3"})
	if err != nil || node != "edge-2" || ws != "ws://10.0.0.12:8080/ws" || asked != "/api/place?exclude=edge-1%2Cedge-3&stream=s1" {
		t.Fatalf("placeEdge: %q %q %v (asked %q)", node, ws, err, asked)
	}
	// Without ws in the answer: the page's address, its query left out.
	if _, ws, err := placeEdge(context.Background(), front.URL, "old", nil); err != nil || ws != "ws://10.0.0.12:8080/ws" {
		t.Fatalf("placeEdge without ws: %q %v", ws, err)
	}
	if _, _, err := placeEdge(context.Background(), front.URL, "full", nil); err == nil {
		t.Fatal("a 503 from the front must be an error")
	}
}

func TestPlaceEdgeOnASingleServerJoinsIt(t *testing.T) {
	single := httptest.NewServer(http.NotFoundHandler())
	defer single.Close()
	node, ws, err := placeEdge(context.Background(), single.URL, "", nil)
	if err != nil || node != "" || ws != strings.Replace(single.URL, "http", "ws", 1)+"/ws" {
		t.Fatalf("placeEdge on a single server: %q %q %v", node, ws, err)
	}
}

func TestPauseDoublesToTenSecondsWithJitter(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for n, base := range map[int]time.Duration{1: 500 * time.Millisecond, 2: time.Second, 3: 2 * time.Second, 5: 8 * time.Second, 6: 10 * time.Second, 40: 10 * time.Second} {
		for i := 0; i < 20; i++ {
			if d := pauseAfter(n, rng); d < base*8/10 || d > base*12/10 {
				t.Fatalf("pause after %d failures: %v, want %v +-20%%", n, d, base)
			}
		}
	}
}

func TestLostEdgesAreExcludedForTenSeconds(t *testing.T) {
	r := newReceiver(0, receiverOptions{front: "http://front"})
	now := time.Now()
	r.excluded["edge-1"] = now.Add(excludeFor)
	r.excluded["edge-0"] = now.Add(-time.Millisecond)
	if got := r.excluding(now); len(got) != 1 || got[0] != "edge-1" {
		t.Fatalf("excluding: %v, want [edge-1]", got)
	}
	if got := r.excluding(now.Add(excludeFor)); len(got) != 0 {
		t.Fatalf("excluding after 10 s: %v, want none", got)
	}
}
