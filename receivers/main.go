// Command pels-receivers runs many synthetic viewers of a PELS server in one
// process. Each is a real WebRTC receiver (pion: ICE, DTLS, SRTP, receiver
// reports, NACK) joined through the player's signaling; it counts what arrives
// without decoding. After all have joined (or failed), it holds for a while and
// writes one JSON report of the hold to stdout; -warmup seconds after the
// joins are left out of it. Progress goes to stderr as JSON lines:
// {"event":"joined","joined":k,"failed":f}, {"event":"hold"}, {"event":"end"}.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/interceptor"
	"github.com/pion/webrtc/v4"
)

type runReport struct {
	Viewers       int     `json:"viewers"`
	RampPerSecond float64 `json:"rampPerSecond"`
	// HoldSeconds as held: shorter than -seconds when a signal ended the hold.
	HoldSeconds float64 `json:"holdSeconds"`
	// This process's own use over the hold (it shares the machine with the server).
	CPUSeconds float64          `json:"cpuSeconds"`
	MaxRSSMb   float64          `json:"maxRssMb"`
	Receivers  []receiverReport `json:"receivers"`
}

// cpuSeconds is this process's user and system CPU time so far, and its peak resident memory in MB.
func cpuSeconds() (float64, float64) {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0, 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(u.Utime) + tv(u.Stime), float64(u.Maxrss) / 1024
}

func main() {
	server := flag.String("url", "http://127.0.0.1:8080", "the server's base URL (http, https, ws or wss)")
	stream := flag.String("stream", "", "stream id (default: the server's first stream)")
	mode := flag.String("mode", "pels", "flow mode to join with: pels, best-effort or nack")
	rx := flag.String("rx", "", "rlm: each receiver chooses its layers by RLM (joins in mode rlm), as the player's ?rx=rlm")
	viewers := flag.Int("viewers", 10, "number of receivers")
	ramp := flag.Float64("ramp", 10, "receivers started per second")
	seconds := flag.Float64("seconds", 30, "seconds to hold once all have joined")
	warmup := flag.Float64("warmup", 0, "seconds between the last join and the hold, not reported (the rate controllers' start-up)")
	joinTimeout := flag.Duration("join-timeout", 20*time.Second, "time a receiver has from signaling to its first keyframe on green")
	place := flag.Bool("place", false, "-url is a cluster's front: each receiver asks its /api/place for an edge and joins there; when the edge's socket closes or it sends move, it asks again excluding that edge and joins the edge answered (docs/api.md; each loss reported under rejoins)")
	stayFlag := flag.String("stay", "", "MIN:MAX seconds: churn until ended (SIGTERM), each receiver staying a random time in the range once joined, then replaced; one JSON line per life on stdout")
	flag.Parse()
	if *rx != "" && *rx != "rlm" {
		fmt.Fprintln(os.Stderr, "pels-receivers: --rx takes rlm")
		os.Exit(2)
	}
	if *place && *rx != "" {
		fmt.Fprintln(os.Stderr, "pels-receivers: --place and --rx rlm do not go together yet")
		os.Exit(2)
	}
	if *viewers < 1 || *ramp <= 0 || *seconds <= 0 || *warmup < 0 {
		fmt.Fprintln(os.Stderr, "pels-receivers: --viewers, --ramp and --seconds must be positive, --warmup not negative")
		os.Exit(2)
	}
	wsURL, host, err := signalingURL(*server)
	if err != nil {
		fmt.Fprintf(os.Stderr, "pels-receivers: %v\n", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	front := ""
	if *place {
		front = *server
	}
	opts := receiverOptions{wsURL: wsURL, front: front, streamID: *stream, mode: *mode, rlm: *rx == "rlm", joinTimeout: *joinTimeout, api: apiFactory(settingsFor(host))}
	if *stayFlag != "" {
		stay, err := parseStay(*stayFlag)
		if err != nil {
			fmt.Fprintf(os.Stderr, "pels-receivers: %v\n", err)
			os.Exit(2)
		}
		runChurn(ctx, opts, *viewers, *ramp, stay, os.Stdout)
		return
	}
	report := run(ctx, opts, *viewers, *ramp, time.Duration(*warmup*float64(time.Second)), time.Duration(*seconds*float64(time.Second)))
	report.RampPerSecond = *ramp
	if err := json.NewEncoder(os.Stdout).Encode(report); err != nil {
		fmt.Fprintf(os.Stderr, "pels-receivers: %v\n", err)
		os.Exit(1)
	}
}

// signalingURL turns the server's base URL into its /ws WebSocket URL, and gives its host.
func signalingURL(base string) (string, string, error) {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return "", "", fmt.Errorf("bad --url %q", base)
	}
	switch u.Scheme {
	case "http", "ws":
		u.Scheme = "ws"
	case "https", "wss":
		u.Scheme = "wss"
	default:
		return "", "", fmt.Errorf("bad --url %q: scheme must be http, https, ws or wss", base)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	if !strings.HasSuffix(u.Path, "/ws") {
		u.Path += "/ws"
	}
	return u.String(), u.Hostname(), nil
}

// settingsFor sets up ICE as a browser on this host would reach the server:
// host candidates over UDP, and only the loopback interface when the server is on it.
func settingsFor(host string) webrtc.SettingEngine {
	var s webrtc.SettingEngine
	s.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	s.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	// Chromium answers setup:active (DTLS client) even to an ICE-lite offerer; pion would take the server role.
	if err := s.SetAnsweringDTLSRole(webrtc.DTLSRoleClient); err != nil {
		panic(err)
	}
	ips, _ := net.LookupIP(host)
	if len(ips) > 0 && ips[0].IsLoopback() {
		s.SetIncludeLoopbackCandidate(true)
		s.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
	}
	return s
}

// apiFactory gives each receiver its own media engine (pion's must not be
// shared between peer connections) with the server's codecs, and the default
// interceptors: receiver reports, NACK generation, stats.
func apiFactory(settings webrtc.SettingEngine) func([]rtpCodec, func(uint32)) (*webrtc.API, error) {
	return func(codecs []rtpCodec, onNack func(uint32)) (*webrtc.API, error) {
		m := &webrtc.MediaEngine{}
		for _, c := range codecs {
			fb := make([]webrtc.RTCPFeedback, len(c.RTCPFeedback))
			for i, f := range c.RTCPFeedback {
				fb[i] = webrtc.RTCPFeedback{Type: f.Type, Parameter: f.Parameter}
			}
			p := webrtc.RTPCodecParameters{
				RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: c.MimeType, ClockRate: uint32(c.ClockRate), SDPFmtpLine: fmtpOf(c.Parameters), RTCPFeedback: fb},
				PayloadType:        webrtc.PayloadType(c.PayloadType),
			}
			if err := m.RegisterCodec(p, webrtc.RTPCodecTypeVideo); err != nil {
				return nil, err
			}
		}
		reg := &interceptor.Registry{}
		// First, so the NACK generator added next writes through it.
		reg.Add(nackCounterFactory{count: onNack})
		if err := webrtc.RegisterDefaultInterceptors(m, reg); err != nil {
			return nil, err
		}
		return webrtc.NewAPI(webrtc.WithMediaEngine(m), webrtc.WithInterceptorRegistry(reg), webrtc.WithSettingEngine(settings)), nil
	}
}

func progress(event string, fields map[string]any) {
	if fields == nil {
		fields = map[string]any{}
	}
	fields["event"] = event
	b, _ := json.Marshal(fields)
	fmt.Fprintln(os.Stderr, string(b))
}

// run starts `n` receivers at `ramp` per second, waits until each has joined
// or failed, then `warmup`, holds for `hold`, and reports the hold.
func run(ctx context.Context, opts receiverOptions, n int, ramp float64, warmup, hold time.Duration) runReport {
	rctx, cancel := context.WithCancel(ctx)
	receivers := make([]*receiver, n)
	var wg sync.WaitGroup
	interval := time.Duration(float64(time.Second) / ramp)
	start := time.Now()
	for i := range receivers {
		if wait := time.Until(start.Add(time.Duration(i) * interval)); wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
			}
		}
		r := newReceiver(i, opts)
		receivers[i] = r
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.run(rctx)
		}()
	}
	lastJoined, lastFailed := -1, -1
	for ctx.Err() == nil {
		joined, failed := 0, 0
		for _, r := range receivers {
			r.mu.Lock()
			if r.err != nil {
				failed++
			} else if !r.joinedAt.IsZero() {
				joined++
			}
			r.mu.Unlock()
		}
		if joined != lastJoined || failed != lastFailed {
			progress("joined", map[string]any{"joined": joined, "failed": failed, "viewers": n})
			lastJoined, lastFailed = joined, failed
		}
		if joined+failed == n {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	select {
	case <-time.After(warmup):
	case <-ctx.Done():
	}
	for _, r := range receivers {
		r.markHold()
	}
	progress("hold", nil)
	cpuAtHold, _ := cpuSeconds()
	holdAt := time.Now()
	select {
	case <-time.After(hold):
	case <-ctx.Done():
	}
	cpuAtEnd, maxRSS := cpuSeconds()
	out := runReport{Viewers: n, HoldSeconds: time.Since(holdAt).Seconds(), CPUSeconds: cpuAtEnd - cpuAtHold, MaxRSSMb: maxRSS, Receivers: make([]receiverReport, n)}
	for i, r := range receivers {
		out.Receivers[i] = r.report()
	}
	progress("end", nil)
	cancel()
	for _, r := range receivers {
		r.close()
	}
	wg.Wait()
	return out
}
