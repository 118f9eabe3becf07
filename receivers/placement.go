package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The rule for moving between edges (docs/api.md, "Moving to another edge"), as the player follows it.
const (
	// moveNotification is what an edge that drains sends its viewers ({ node, reason }): like the loss of its
	// socket, it sends the receiver back to the front, excluding that edge.
	moveNotification = "move"
	// excludeFor: a lost edge is not asked for this long (a killed node's registry record lives up to 6 s).
	excludeFor = 10 * time.Second
	// A failed attempt is tried again after a pause doubling from the first to the most, with jitter.
	firstPause = 500 * time.Millisecond
	mostPause  = 10 * time.Second
)

// pauseAfter is the wait after the n-th failed attempt (n from 1): 0.5 s doubling to 10 s, jittered by +-20%.
func pauseAfter(n int, rng *rand.Rand) time.Duration {
	d := firstPause
	for i := 1; i < n && d < mostPause; i++ {
		d *= 2
	}
	if d > mostPause {
		d = mostPause
	}
	return time.Duration(float64(d) * (0.8 + 0.4*rng.Float64()))
}

var placeClient = &http.Client{Timeout: 5 * time.Second}

// placement is the front's answer to GET /api/place: the edge's id, the player's page there and its signaling.
type placement struct {
	Node string `json:"node"`
	URL  string `json:"url"`
	WS   string `json:"ws"`
}

// placeEdge asks the front (the cluster's public address) for the edge a new viewer of stream goes to
// (stream "": any), not one of exclude, and gives that edge's id and its signaling WebSocket URL. A front
// without a registry (404) is a single server: its own signaling, node "".
func placeEdge(ctx context.Context, front, stream string, exclude []string) (string, string, error) {
	u, err := url.Parse(front)
	if err != nil {
		return "", "", fmt.Errorf("place: bad front URL %q", front)
	}
	u.Path = "/api/place"
	q := url.Values{}
	if stream != "" {
		q.Set("stream", stream)
	}
	if len(exclude) > 0 {
		q.Set("exclude", strings.Join(exclude, ","))
	}
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", "", err
	}
	res, err := placeClient.Do(req)
	if err != nil {
		return "", "", fmt.Errorf("place: %w", err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	if err != nil {
		return "", "", fmt.Errorf("place: %w", err)
	}
	if res.StatusCode == http.StatusNotFound {
		ws, _, err := signalingURL(front)
		return "", ws, err
	}
	if res.StatusCode != http.StatusOK {
		return "", "", fmt.Errorf("place: %d %s", res.StatusCode, body)
	}
	var p placement
	if err := json.Unmarshal(body, &p); err != nil || (p.URL == "" && p.WS == "") {
		return "", "", fmt.Errorf("place: unexpected answer %q", body)
	}
	if p.WS != "" {
		return p.Node, p.WS, nil
	}
	edge, err := url.Parse(p.URL)
	if err != nil {
		return "", "", fmt.Errorf("place: unexpected answer %q", body)
	}
	// The player's query (the stream) is for the page; signaling names the stream in its join.
	edge.RawQuery = ""
	ws, _, err := signalingURL(edge.String())
	if err != nil {
		return "", "", fmt.Errorf("place: %w", err)
	}
	return p.Node, ws, nil
}

// rejoinReport is one loss of the receiver's edge and its way back through the front.
type rejoinReport struct {
	// LostAtMs: when the edge's socket closed (or it said drain), Unix ms.
	LostAtMs int64 `json:"lostAtMs"`
	// Ms: from the loss to the first complete keyframe on green from the new edge; nil: not back by the run's end.
	Ms       *float64 `json:"ms"`
	From     string   `json:"from"`
	To       string   `json:"to,omitempty"`
	Attempts int      `json:"attempts"`
}

// followPlacement keeps a placed receiver (joined through the front) on an edge until ctx ends: whenever its
// edge's signaling closes, or the edge says move, it asks the front again, excluding that edge, and joins the
// edge answered.
func (r *receiver) followPlacement(ctx context.Context) {
	rng := rand.New(rand.NewSource(time.Now().UnixNano() + int64(r.index)))
	for {
		r.mu.Lock()
		sig := r.sig
		r.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-sig.done:
		}
		if ctx.Err() != nil {
			return
		}
		lost := time.Now()
		r.mu.Lock()
		rj := &rejoinReport{LostAtMs: lost.UnixMilli(), From: r.edge}
		r.rejoins = append(r.rejoins, rj)
		if r.edge != "" {
			r.excluded[r.edge] = lost.Add(excludeFor)
		}
		r.mu.Unlock()
		r.retire()
		for ctx.Err() == nil {
			r.mu.Lock()
			rj.Attempts++
			r.mu.Unlock()
			err := r.join(ctx)
			if err == nil {
				err = r.awaitKeyframe(ctx)
			}
			if err == nil && ctx.Err() == nil {
				r.mu.Lock()
				ms := float64(r.keyAt.Sub(lost)) / float64(time.Millisecond)
				rj.Ms, rj.To = &ms, r.edge
				r.mu.Unlock()
				break
			}
			r.retire()
			r.mu.Lock()
			pause := pauseAfter(rj.Attempts, rng)
			r.mu.Unlock()
			select {
			case <-ctx.Done():
			case <-time.After(pause):
			}
		}
	}
}

// retire lets go of the receiver's edge (its connection and signaling), keeping what it counted over the
// hold so far; the next edge's streams count on from there. A failed attempt's error is forgotten.
func (r *receiver) retire() {
	r.mu.Lock()
	pc, sig := r.pc, r.sig
	r.pc, r.sig = nil, nil
	if h := r.hold; h != nil {
		for ssrc, s := range r.streams {
			c := r.colorOf[ssrc]
			r.colorsDone[c] = r.colorsDone[c].plus(s.snapshot().minus(h.colors[c]))
			h.colors[c] = colorCounts{}
		}
		received, sent := r.green.since(h.greenAt)
		r.greenDone.Received += received
		r.greenDone.Sent += sent
		h.greenAt = nil
		if r.hasServer {
			r.serverFramesDone += r.server.framesSent() - h.server.framesSent()
		}
		h.server = serverView{}
	}
	r.streams = map[uint32]*streamReceiver{}
	r.green = newFrameSpan(8)
	r.server, r.hasServer = serverView{}, false
	r.keyAt = time.Time{}
	r.err = nil
	r.mu.Unlock()
	if pc != nil {
		_ = pc.Close()
	}
	if sig != nil {
		sig.close()
	}
}

// excluding is the edges not to be placed on now (called with r.mu held).
func (r *receiver) excluding(now time.Time) []string {
	var out []string
	for node, until := range r.excluded {
		if now.Before(until) {
			out = append(out, node)
		} else {
			delete(r.excluded, node)
		}
	}
	return out
}
