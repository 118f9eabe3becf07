package main

import "time"

// frameDelivery is frames received complete against frames sent over the hold.
type frameDelivery struct {
	Received int64 `json:"received"`
	Sent     int64 `json:"sent"`
}

// serverReport is what the server's viewerState said about this viewer.
type serverReport struct {
	// FramesSent over the hold, as the server counted them: from its last viewerState before the hold to its last (once a second).
	FramesSent    int64    `json:"framesSent"`
	NacksReceived int64    `json:"nacksReceived"`
	RtxPackets    int64    `json:"rtxPacketsSent"`
	FeedbackSteps int64    `json:"feedbackSteps"`
	RttMs         *float64 `json:"rttMs"`
	RateKbps      float64  `json:"rateKbps"`
	Mode          string   `json:"mode"`
	Transport     *string  `json:"transport"`
}

// receiverReport is one synthetic viewer's result; counts cover the hold phase.
type receiverReport struct {
	Index  int  `json:"index"`
	Joined bool `json:"joined"`
	// ViewerID is the server's id of this viewer (from its viewerState), so the report can be set beside the server's view.
	ViewerID string `json:"viewerId,omitempty"`
	Error    string `json:"error,omitempty"`
	// JoinMs: from opening signaling to the first complete keyframe on green.
	JoinMs *float64               `json:"joinMs"`
	Colors map[string]colorCounts `json:"colors"`
	// Layers: complete and given-up VP8 frames per temporal layer (TID 0, 1, 2).
	Layers [3]layerCounts `json:"layers"`
	// Green: base frames, sent as numbered by TL0PICIDX (a frame lost whole
	// counts too). All: every source frame, received complete against all seen
	// (complete or not); a frame whose every packet was lost shows only in its
	// color's loss.
	Green     frameDelivery    `json:"green"`
	All       frameDelivery    `json:"all"`
	NacksSent map[string]int64 `json:"nacksSent"`
	Server    *serverReport    `json:"server"`
	// Rlm: the receiver-driven layers (--rx rlm), absent otherwise.
	Rlm *rlmReport `json:"rlm,omitempty"`
	// Edge: the edge the front placed it on last, and each loss of its edge (-place); absent otherwise.
	Edge    string         `json:"edge,omitempty"`
	Rejoins []rejoinReport `json:"rejoins,omitempty"`
}

// report is the counts since markHold.
func (r *receiver) report() receiverReport {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := receiverReport{Index: r.index, Joined: r.err == nil && !r.joinedAt.IsZero(), Colors: map[string]colorCounts{}, NacksSent: map[string]int64{}}
	if r.err != nil {
		out.Error = r.err.Error()
	}
	if !r.joinedAt.IsZero() {
		ms := float64(r.joinedAt.Sub(r.startedAt)) / float64(time.Millisecond)
		out.JoinMs = &ms
	}
	h := r.hold
	if h == nil {
		h = &holdStart{colors: map[string]colorCounts{}, nacksSent: map[string]int64{}}
	}
	for c, done := range r.colorsDone {
		out.Colors[c] = done
	}
	for ssrc, s := range r.streams {
		color := r.colorOf[ssrc]
		now := s.snapshot().minus(h.colors[color])
		if done, ok := r.colorsDone[color]; ok {
			now = done.plus(now)
		}
		out.Colors[color] = now
	}
	for i := range out.Layers {
		out.Layers[i] = layerCounts{
			Complete:   r.layers[i].Complete - h.layers[i].Complete,
			Incomplete: r.layers[i].Incomplete - h.layers[i].Incomplete,
			Keyframes:  r.layers[i].Keyframes - h.layers[i].Keyframes,
		}
	}
	out.Green.Received, out.Green.Sent = r.green.since(h.greenAt)
	out.Green.Received += r.greenDone.Received
	out.Green.Sent += r.greenDone.Sent
	for _, l := range out.Layers {
		out.All.Received += l.Complete
		out.All.Sent += l.Complete + l.Incomplete
	}
	if r.hasServer {
		v := r.server
		out.ViewerID = v.ID
		out.Server = &serverReport{
			FramesSent:    r.serverFramesDone + v.framesSent() - h.server.framesSent(),
			NacksReceived: v.Rtx.NacksReceived,
			RtxPackets:    v.Rtx.PacketsSent,
			FeedbackSteps: v.FeedbackSteps,
			RttMs:         v.RttMs,
			RateKbps:      v.RateKbps,
			Mode:          v.Mode,
			Transport:     v.Transport,
		}
	}
	for _, c := range colors {
		out.NacksSent[c] = r.nacksSent[c] - h.nacksSent[c]
	}
	if r.rlm != nil {
		out.Rlm = r.rlm.report(time.Now())
	}
	out.Edge = r.edge
	for _, rj := range r.rejoins {
		out.Rejoins = append(out.Rejoins, *rj)
	}
	return out
}
