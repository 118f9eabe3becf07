package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// drainNotification is what an edge that is stopping sends its viewers before it closes their sockets:
// like the socket's loss, it sends the receiver back to the front for another edge.
const drainNotification = "drain"

// rejoinPause is the wait between two attempts to be placed again: the front may still name the lost edge
// until its record expires in the registry (a few seconds), and a refused join is tried again after it.
const rejoinPause = 500 * time.Millisecond

var placeClient = &http.Client{Timeout: 5 * time.Second}

// placement is the front's answer to GET /api/place: the edge's id and the player's URL there.
type placement struct {
	Node string `json:"node"`
	URL  string `json:"url"`
}

// placeEdge asks the front (the cluster's public address) for the edge a new viewer of stream goes to
// (stream "": any), and gives that edge's id and its signaling WebSocket URL.
func placeEdge(ctx context.Context, front, stream string) (string, string, error) {
	u, err := url.Parse(front)
	if err != nil {
		return "", "", fmt.Errorf("place: bad front URL %q", front)
	}
	u.Path = "/api/place"
	u.RawQuery = ""
	if stream != "" {
		u.RawQuery = url.Values{"stream": {stream}}.Encode()
	}
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
	if res.StatusCode != http.StatusOK {
		return "", "", fmt.Errorf("place: %d %s", res.StatusCode, body)
	}
	var p placement
	if err := json.Unmarshal(body, &p); err != nil || p.URL == "" {
		return "", "", fmt.Errorf("place: unexpected answer %q", body)
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
// edge's signaling closes, or the edge says drain, it asks the front again and joins the edge answered.
func (r *receiver) followPlacement(ctx context.Context) {
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
			select {
			case <-ctx.Done():
			case <-time.After(rejoinPause):
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
