package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/pion/interceptor"
	"github.com/pion/rtcp"
	"github.com/pion/webrtc/v4"
)

var colors = []string{"green", "yellow", "red"}

// serverView is what the server's viewerState notification says it sent this viewer.
type serverView struct {
	ID         string `json:"id"`
	FramesSent struct {
		Tid0 int64 `json:"tid0"`
		Tid1 int64 `json:"tid1"`
		Tid2 int64 `json:"tid2"`
	} `json:"framesSent"`
	FeedbackSteps int64    `json:"feedbackSteps"`
	RttMs         *float64 `json:"rttMs"`
	RateKbps      float64  `json:"rateKbps"`
	Mode          string   `json:"mode"`
	Transport     *string  `json:"transport"`
	Rtx           struct {
		NacksReceived int64 `json:"nacksReceived"`
		PacketsSent   int64 `json:"packetsSent"`
	} `json:"rtx"`
}

func (v serverView) framesSent() int64 {
	return v.FramesSent.Tid0 + v.FramesSent.Tid1 + v.FramesSent.Tid2
}

// receiverOptions are shared by every receiver of a run.
type receiverOptions struct {
	wsURL string
	// front: the cluster's public address; each receiver asks its /api/place for an edge (wsURL unused) and,
	// when that edge is lost or drains, asks again (followPlacement). "": join wsURL.
	front       string
	streamID    string
	mode        string
	joinTimeout time.Duration
	// rlm: the receiver chooses its layers by RLM (joins with mode rlm).
	rlm bool
	// api makes one receiver's WebRTC stack for the server's codecs; onNack counts the NACKs it sends.
	api func(codecs []rtpCodec, onNack func(mediaSSRC uint32)) (*webrtc.API, error)
}

// receiver is one synthetic viewer: the player's signaling, then a real
// PeerConnection (ICE, DTLS, SRTP, receiver reports, NACK) receiving the three
// color streams, counted without decoding.
type receiver struct {
	index int
	opts  receiverOptions

	mu        sync.Mutex
	streams   map[uint32]*streamReceiver // by media SSRC
	colorOf   map[uint32]string
	layers    [3]layerCounts
	green     frameSpan // base frames, numbered by TL0PICIDX
	startedAt time.Time
	joinedAt  time.Time // first complete keyframe on green
	keyAt     time.Time // first complete keyframe on green from the current edge
	edge      string    // the edge the front placed it on (with opts.front)
	rejoins   []*rejoinReport
	excluded  map[string]time.Time // edges lost, not to be asked for until then
	// Counted over the hold from edges it has left (with opts.front): their streams are gone.
	colorsDone       map[string]colorCounts
	greenDone        frameDelivery
	serverFramesDone int64
	server           serverView
	hasServer        bool
	nacksSent        map[string]int64 // by the color of the stream NACKed
	err              error
	rlm              *rlmDriver // nil unless opts.rlm

	hold *holdStart // counts when the hold phase began

	sig *signaling
	pc  *webrtc.PeerConnection
}

// holdStart is a receiver's counts at the start of the measured hold.
type holdStart struct {
	colors    map[string]colorCounts
	layers    [3]layerCounts
	greenAt   *int64
	server    serverView
	nacksSent map[string]int64
}

func newReceiver(index int, opts receiverOptions) *receiver {
	return &receiver{
		index:      index,
		opts:       opts,
		streams:    map[uint32]*streamReceiver{},
		colorOf:    map[uint32]string{},
		nacksSent:  map[string]int64{},
		green:      newFrameSpan(8),
		colorsDone: map[string]colorCounts{},
		excluded:   map[string]time.Time{},
	}
}

// run joins and receives until ctx ends; a join that fails or sees no
// keyframe on green within the join timeout ends it with an error.
func (r *receiver) run(ctx context.Context) {
	r.mu.Lock()
	r.startedAt = time.Now()
	r.mu.Unlock()
	if r.opts.rlm {
		r.mu.Lock()
		r.rlm = newRlmDriver(time.Now(), int64(r.index)+time.Now().UnixNano())
		r.mu.Unlock()
	}
	err := r.join(ctx)
	if err == nil && r.rlm != nil {
		go r.runRlm(ctx)
	}
	if err == nil {
		err = r.awaitKeyframe(ctx)
	}
	if err != nil && ctx.Err() == nil {
		r.mu.Lock()
		r.err = err
		r.mu.Unlock()
		r.close()
		return
	}
	if r.opts.front != "" {
		r.followPlacement(ctx)
		return
	}
	<-ctx.Done()
}

func (r *receiver) awaitKeyframe(ctx context.Context) error {
	deadline := time.NewTimer(r.opts.joinTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		r.mu.Lock()
		ok, failed := !r.keyAt.IsZero(), r.err
		r.mu.Unlock()
		if ok {
			return nil
		}
		if failed != nil {
			return failed
		}
		select {
		case <-ctx.Done():
			return nil
		case <-deadline.C:
			return fmt.Errorf("no complete keyframe on green within %s", r.opts.joinTimeout)
		case <-tick.C:
		}
	}
}

func (r *receiver) join(ctx context.Context) error {
	jctx, cancel := context.WithTimeout(ctx, r.opts.joinTimeout)
	defer cancel()
	wsURL := r.opts.wsURL
	if r.opts.front != "" {
		r.mu.Lock()
		exclude := r.excluding(time.Now())
		r.mu.Unlock()
		edge, u, err := placeEdge(jctx, r.opts.front, r.opts.streamID, exclude)
		if err != nil {
			return err
		}
		r.mu.Lock()
		r.edge = edge
		r.mu.Unlock()
		wsURL = u
	}
	sig, err := dialSignaling(jctx, wsURL, r.onNotification)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.sig = sig
	r.mu.Unlock()
	streamID := r.opts.streamID
	if streamID == "" {
		var s struct {
			Streams []struct {
				ID string `json:"id"`
			} `json:"streams"`
		}
		if err := sig.request(jctx, "getStreams", map[string]any{}, &s); err != nil {
			return err
		}
		if len(s.Streams) == 0 {
			return errors.New("the server has no streams")
		}
		streamID = s.Streams[0].ID
	}
	var joined struct {
		RouterRtpCapabilities json.RawMessage `json:"routerRtpCapabilities"`
	}
	mode := r.opts.mode
	if r.opts.rlm {
		mode = "rlm"
	}
	if err := sig.request(jctx, "join", map[string]any{"streamId": streamID, "mode": mode}, &joined); err != nil {
		return err
	}
	var transport transportParams
	if err := sig.request(jctx, "createTransport", map[string]any{}, &transport); err != nil {
		return err
	}
	caps, err := receiveCapabilities(joined.RouterRtpCapabilities)
	if err != nil {
		return err
	}
	var consumed struct {
		Consumers []consumerParams `json:"consumers"`
	}
	if err := sig.request(jctx, "consume", map[string]any{"rtpCapabilities": caps}, &consumed); err != nil {
		return err
	}
	if len(consumed.Consumers) == 0 {
		return errors.New("consume: no consumers")
	}
	api, err := r.opts.api(consumed.Consumers[0].RTPParameters.Codecs, r.countNack)
	if err != nil {
		return err
	}
	pc, err := api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.pc = pc
	for _, c := range consumed.Consumers {
		ssrc := c.RTPParameters.Encodings[0].SSRC
		r.colorOf[ssrc] = c.Color
		r.streams[ssrc] = newStreamReceiver(c.RTPParameters.Codecs[0].ClockRate, r.onFrame(c.Color), r.onGiveUp)
	}
	r.mu.Unlock()
	pc.OnTrack(func(track *webrtc.TrackRemote, rx *webrtc.RTPReceiver) {
		go r.readRTP(track)
		go drainRTCP(rx)
	})
	pc.OnConnectionStateChange(func(s webrtc.PeerConnectionState) {
		if s == webrtc.PeerConnectionStateFailed {
			r.mu.Lock()
			// A connection to an edge the receiver has left fails as its own.
			if r.err == nil && r.pc == pc {
				r.err = errors.New("the media connection failed")
			}
			r.mu.Unlock()
		}
	})
	offer, err := remoteOffer(transport, consumed.Consumers)
	if err != nil {
		return err
	}
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: offer}); err != nil {
		return fmt.Errorf("remote description: %w", err)
	}
	answer, err := pc.CreateAnswer(nil)
	if err != nil {
		return err
	}
	if err := pc.SetLocalDescription(answer); err != nil {
		return err
	}
	// The answer is DTLS client (setup:active), as a browser answering an actpass offer.
	dtls := dtlsParameters{Role: "client", Fingerprints: localFingerprints(answer.SDP)}
	if err := sig.request(jctx, "connectTransport", map[string]any{"dtlsParameters": dtls}, nil); err != nil {
		return err
	}
	if r.opts.rlm {
		// RLM starts at the base layer, as the player does.
		if err := sig.request(jctx, "setColors", map[string]any{"colors": colors[:1]}, nil); err != nil {
			return err
		}
	}
	return sig.request(jctx, "resume", map[string]any{}, nil)
}

// rlmPoll: RLM's timers run, and its subscription is turned into colors, this often.
const rlmPoll = 100 * time.Millisecond

// runRlm asks the server for the colors RLM chooses, until ctx ends.
func (r *receiver) runRlm(ctx context.Context) {
	tick := time.NewTicker(rlmPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case at := <-tick.C:
			r.mu.Lock()
			want := r.rlm.due(at)
			r.mu.Unlock()
			if want == nil {
				continue
			}
			rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err := r.sig.request(rctx, "setColors", map[string]any{"colors": want}, nil)
			cancel()
			if err != nil && ctx.Err() == nil {
				r.mu.Lock()
				r.rlm.setColorsFailed++
				r.mu.Unlock()
			}
		}
	}
}

// receiveCapabilities is what the receiver can take of the router's
// capabilities: its video codecs with their feedback, and no header extensions
// (the receivers need none of them).
func receiveCapabilities(router json.RawMessage) (map[string]any, error) {
	var caps struct {
		Codecs []map[string]any `json:"codecs"`
	}
	if err := json.Unmarshal(router, &caps); err != nil {
		return nil, fmt.Errorf("join: router capabilities: %w", err)
	}
	var codecs []map[string]any
	for _, c := range caps.Codecs {
		mime, _ := c["mimeType"].(string)
		if strings.EqualFold(mime, "video/VP8") || strings.EqualFold(mime, "video/rtx") {
			codecs = append(codecs, c)
		}
	}
	return map[string]any{"codecs": codecs, "headerExtensions": []any{}}, nil
}

func (r *receiver) readRTP(track *webrtc.TrackRemote) {
	for {
		p, _, err := track.ReadRTP()
		if err != nil {
			return
		}
		at := time.Now()
		r.mu.Lock()
		if s := r.streams[p.SSRC]; s != nil {
			if r.rlm != nil {
				r.rlm.onPacket(r.colorOf[p.SSRC], s.extend(p.SequenceNumber), at)
			}
			s.onPacket(p.SequenceNumber, p.Timestamp, p.Marker, p.Payload, p.MarshalSize(), at)
		}
		r.mu.Unlock()
	}
}

// drainRTCP reads the sender reports: pion's receiver-report interceptor sees
// them as they are read, so the receiver reports carry LSR and DLSR (the
// server's RTT), as a browser's do.
func drainRTCP(rx *webrtc.RTPReceiver) {
	for {
		if _, _, err := rx.ReadRTCP(); err != nil {
			return
		}
	}
}

// onFrame counts a complete frame of one color stream (called with r.mu held).
func (r *receiver) onFrame(color string) func(completedFrame) {
	return func(f completedFrame) {
		// The small keyframes that open an enhancement stream are not source frames.
		if f.TID < 0 || f.TID > 2 || (color != "green" && f.Keyframe) {
			return
		}
		r.layers[f.TID].Complete++
		if f.Keyframe {
			r.layers[f.TID].Keyframes++
		}
		if color == "green" {
			r.green.add(f.TL0PicIdx)
			if f.Keyframe && r.keyAt.IsZero() {
				r.keyAt = time.Now()
				if r.joinedAt.IsZero() {
					r.joinedAt = r.keyAt
				}
			}
		}
	}
}

func (r *receiver) onGiveUp(tid int) {
	if tid >= 0 && tid <= 2 {
		r.layers[tid].Incomplete++
	}
}

func (r *receiver) onNotification(name string, data json.RawMessage) {
	if name == moveNotification && r.opts.front != "" {
		r.mu.Lock()
		sig := r.sig
		r.mu.Unlock()
		// Its socket closed, as if lost: followPlacement takes it to another edge.
		if sig != nil {
			go sig.close()
		}
		return
	}
	if name != "viewerState" {
		return
	}
	var v serverView
	if json.Unmarshal(data, &v) != nil {
		return
	}
	r.mu.Lock()
	r.server, r.hasServer = v, true
	r.mu.Unlock()
}

// countNack is called for each NACK the receiver sends.
func (r *receiver) countNack(mediaSSRC uint32) {
	r.mu.Lock()
	if color, ok := r.colorOf[mediaSSRC]; ok {
		r.nacksSent[color]++
	}
	r.mu.Unlock()
}

// markHold takes the counts the hold phase's results are measured from.
func (r *receiver) markHold() {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := &holdStart{colors: map[string]colorCounts{}, layers: r.layers, server: r.server, nacksSent: map[string]int64{}}
	for c, n := range r.nacksSent {
		h.nacksSent[c] = n
	}
	for ssrc, s := range r.streams {
		h.colors[r.colorOf[ssrc]] = s.snapshot()
	}
	h.greenAt = r.green.highest()
	r.hold = h
	// What edges left before the hold counted is not the hold's.
	r.colorsDone, r.greenDone, r.serverFramesDone = map[string]colorCounts{}, frameDelivery{}, 0
	if r.rlm != nil {
		r.rlm.markHold(time.Now())
	}
}

func (r *receiver) close() {
	r.mu.Lock()
	pc, sig := r.pc, r.sig
	r.mu.Unlock()
	if pc != nil {
		_ = pc.Close()
	}
	if sig != nil {
		sig.close()
	}
}

// nackCounter is an interceptor that counts the NACKs a receiver writes.
type nackCounter struct {
	interceptor.NoOp
	count func(mediaSSRC uint32)
}

func (n *nackCounter) BindRTCPWriter(w interceptor.RTCPWriter) interceptor.RTCPWriter {
	return interceptor.RTCPWriterFunc(func(pkts []rtcp.Packet, attrs interceptor.Attributes) (int, error) {
		for _, p := range pkts {
			if nack, ok := p.(*rtcp.TransportLayerNack); ok {
				n.count(nack.MediaSSRC)
			}
		}
		return w.Write(pkts, attrs)
	})
}

type nackCounterFactory struct{ count func(mediaSSRC uint32) }

func (f nackCounterFactory) NewInterceptor(string) (interceptor.Interceptor, error) {
	return &nackCounter{count: f.count}, nil
}
