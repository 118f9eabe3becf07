package main

import "math"

// The RLM state machine of shared/src/rlm/rlm.ts, ported line for line so
// the synthetic receivers join and leave layers by the player's rules:
// a receiver adds a layer when its join timer fires (a join experiment),
// drops the top layer when loss follows an experiment or persists, backs a
// failed experiment's join timer off and relaxes it after quiet periods.
// Both test suites replay shared/src/rlm/rlmVectors.json, so the two cannot
// drift apart silently. States: S steady, H hysteresis, M measurement, D dropped.

type rlmParams struct {
	Layers             int     `json:"layers"`
	LossThreshold      float64 `json:"lossThreshold"`
	WindowPackets      int     `json:"windowPackets"`
	Backoff            float64 `json:"backoff"`
	Relax              float64 `json:"relax"`
	InitialJoinMs      float64 `json:"initialJoinMs"`
	MaxJoinMs          float64 `json:"maxJoinMs"`
	InitialDetectMs    float64 `json:"initialDetectMs"`
	InitialDetectVarMs float64 `json:"initialDetectVarMs"`
	DetectGain         float64 `json:"detectGain"`
	DetectVarGain      float64 `json:"detectVarGain"`
}

// rlmDefaults are RLM_DEFAULTS for a stream of `layers` layers.
func rlmDefaults(layers int) rlmParams {
	return rlmParams{
		Layers: layers, LossThreshold: 0.25, WindowPackets: 10, Backoff: 2, Relax: 0.75,
		InitialJoinMs: 5000, MaxJoinMs: 60_000, InitialDetectMs: 5000, InitialDetectVarMs: 2000,
		DetectGain: 0.25, DetectVarGain: 0.25,
	}
}

// truncatedExp is an exponential draw with mean m, redrawn until below 4m.
func truncatedExp(meanMs float64, random func() float64) float64 {
	for {
		x := -meanMs * math.Log(1-random())
		if x < 4*meanMs {
			return x
		}
	}
}

// optMs is a time that may be unset (undefined in the TypeScript).
type optMs struct {
	set bool
	ms  float64
}

func some(ms float64) optMs { return optMs{true, ms} }

type rlmReceiver struct {
	p            rlmParams
	random       func() float64
	announce     func(layer int)
	state        string
	subscription int
	joinTimerMs  []float64
	detectMs     float64
	detectVarMs  float64
	joinTs       []optMs
	pendingTs    []optMs
	addTs        optMs
	detectAt     optMs
	joinAt       float64
	nextSeq      []optMs // the next sequence number expected per layer (as float64: sequence numbers are extended)
	received     int
	lost         int
	snapReceived int
	snapLost     int
	topPackets   int
	adds         int
	drops        int
}

func newRlmReceiver(p rlmParams, random func() float64, nowMs float64, announce func(layer int)) *rlmReceiver {
	if p.Layers < 1 || p.WindowPackets < 1 {
		panic("rlm: layers and windowPackets must be >= 1")
	}
	if announce == nil {
		announce = func(int) {}
	}
	r := &rlmReceiver{p: p, random: random, announce: announce, state: "S", subscription: 1,
		joinTimerMs: make([]float64, p.Layers+2), joinTs: make([]optMs, p.Layers+2), pendingTs: make([]optMs, p.Layers+2), nextSeq: make([]optMs, p.Layers+2),
		detectMs: p.InitialDetectMs, detectVarMs: p.InitialDetectVarMs}
	for i := range r.joinTimerMs {
		r.joinTimerMs[i] = p.InitialJoinMs
	}
	r.joinAt = nowMs + r.joinDelay()
	return r
}

// nextWakeMs is when tick must run next.
func (r *rlmReceiver) nextWakeMs() float64 {
	if r.detectAt.set {
		return math.Min(r.joinAt, r.detectAt.ms)
	}
	return r.joinAt
}

// onPacket: a packet of `layer` (1-based) with that layer's sequence number arrived.
func (r *rlmReceiver) onPacket(layer int, seq int64, nowMs float64) {
	if layer < 1 || layer > r.subscription {
		return
	}
	expected := r.nextSeq[layer]
	r.nextSeq[layer] = some(float64(seq + 1))
	r.received++
	if layer == r.subscription {
		r.topPackets++
	}
	if expected.set && float64(seq) > expected.ms {
		r.lost += int(float64(seq) - expected.ms)
		r.onLoss(nowMs)
	}
}

// onReport: packets counted on `layer` since the last report; any loss is a loss event.
func (r *rlmReceiver) onReport(layer, received, lost int, nowMs float64) {
	if layer < 1 || layer > r.subscription {
		return
	}
	r.received += received
	if layer == r.subscription {
		r.topPackets += received
	}
	if lost > 0 {
		r.lost += lost
		r.onLoss(nowMs)
	}
}

// onAnnounce: another receiver of the session started a join experiment at `layer`.
func (r *rlmReceiver) onAnnounce(layer int, nowMs float64) {
	r.joinTs[layer] = some(nowMs)
	if layer > r.subscription {
		r.pendingTs[layer] = some(nowMs)
	}
}

// tick runs the timers that are due.
func (r *rlmReceiver) tick(nowMs float64) {
	if r.detectAt.set && nowMs >= r.detectAt.ms {
		r.detectAt = optMs{}
		r.onDetectTimer(nowMs)
	}
	if nowMs >= r.joinAt {
		r.onJoinTimer(nowMs)
	}
}

func (r *rlmReceiver) measuredLoss() (int, float64) {
	received := r.received - r.snapReceived
	lost := r.lost - r.snapLost
	if lost+received > 0 {
		return received, float64(lost) / float64(lost+received)
	}
	return received, 0
}

func (r *rlmReceiver) recent(ts optMs, nowMs float64) bool {
	return ts.set && ts.ms+r.detectMs+2*r.detectVarMs > nowMs
}

func (r *rlmReceiver) onLoss(nowMs float64) {
	if r.state == "M" {
		received, ratio := r.measuredLoss()
		if received >= r.p.WindowPackets && ratio > r.p.LossThreshold {
			r.detectAt = optMs{}
			r.dropLayer(nowMs)
		}
		return
	}
	if r.state != "S" {
		return
	}
	r.detectAt = optMs{}
	n := 0
	for k := r.p.Layers; k >= 1; k-- {
		if r.recent(r.pendingTs[k], nowMs) {
			n = k
			break
		}
	}
	if n > 0 {
		// A join experiment at layer n caused this: back its timer off, and peg the layers above.
		r.joinTimerMs[n] = math.Min(r.p.Backoff*r.joinTimerMs[n], r.p.MaxJoinMs)
		for k := n + 1; k <= r.p.Layers; k++ {
			r.joinTimerMs[k] = math.Max(r.joinTimerMs[k], r.joinTimerMs[n])
		}
		if n == r.subscription {
			d := nowMs - r.pendingTs[n].ms
			v := math.Abs(d - r.detectMs)
			r.detectMs = (1-r.p.DetectGain)*r.detectMs + r.p.DetectGain*d
			r.detectVarMs = (1-r.p.DetectVarGain)*r.detectVarMs + r.p.DetectVarGain*v
			r.dropLayer(nowMs)
			return
		}
		if n == r.subscription+1 {
			r.joinAt = nowMs + r.joinDelay()
		}
	}
	if r.recent(r.addTs, nowMs) {
		r.enterMeasurement(nowMs)
	} else {
		r.state = "H"
		r.detectAt = some(nowMs + r.conservativeMs())
	}
}

func (r *rlmReceiver) onDetectTimer(nowMs float64) {
	switch r.state {
	case "H":
		r.enterMeasurement(nowMs)
	case "D", "M":
		r.state = "S"
		r.detectAt = some(nowMs + r.conservativeMs())
	default:
		// A quiet detection period at this level: experiments to the next one get likelier.
		if k := r.subscription; k >= 1 {
			r.joinTimerMs[k] = math.Max(r.p.Relax*r.joinTimerMs[k], r.p.InitialJoinMs)
		}
		r.detectAt = some(nowMs + r.conservativeMs())
	}
}

func (r *rlmReceiver) onJoinTimer(nowMs float64) {
	next := r.subscription + 1
	recentJoin := false
	for k := 1; k <= r.subscription; k++ {
		if r.recent(r.joinTs[k], nowMs) {
			recentJoin = true
		}
	}
	topFlowing := r.subscription == 0 || r.topPackets > 0
	if r.state == "S" && !recentJoin && topFlowing && next <= r.p.Layers {
		r.subscription = next
		r.adds++
		r.topPackets = 0
		r.nextSeq[next] = optMs{}
		r.joinTs[next], r.pendingTs[next], r.addTs = some(nowMs), some(nowMs), some(nowMs)
		r.announce(next)
	}
	r.joinAt = nowMs + r.joinDelay()
}

func (r *rlmReceiver) enterMeasurement(nowMs float64) {
	r.state = "M"
	r.snapReceived, r.snapLost = r.received, r.lost
	r.detectAt = some(nowMs + r.detectMs + (float64(r.subscription)/2+1.5)*r.detectVarMs)
}

func (r *rlmReceiver) dropLayer(nowMs float64) {
	if r.subscription > 0 {
		r.nextSeq[r.subscription] = optMs{}
		r.subscription--
		r.drops++
		r.topPackets = 1 // the layer below has been flowing
	}
	r.state = "D"
	r.detectAt = some(nowMs + r.conservativeMs())
}

func (r *rlmReceiver) conservativeMs() float64 {
	return r.detectMs + 1.5*r.detectVarMs
}

func (r *rlmReceiver) joinDelay() float64 {
	tj := r.joinTimerMs[min(r.subscription+1, r.p.Layers)]
	return tj/2 + truncatedExp(tj, r.random)
}
