package main

import (
	"fmt"
	"sort"
	"strings"
)

// The server's transport and consumer parameters (mediasoup's shapes), as
// signaling returns them; only the fields a receiver needs.

type iceParameters struct {
	UsernameFragment string `json:"usernameFragment"`
	Password         string `json:"password"`
	IceLite          bool   `json:"iceLite"`
}

type iceCandidate struct {
	Foundation string `json:"foundation"`
	Priority   uint32 `json:"priority"`
	Address    string `json:"address"`
	IP         string `json:"ip"`
	Protocol   string `json:"protocol"`
	Port       int    `json:"port"`
	Type       string `json:"type"`
	TCPType    string `json:"tcpType"`
}

type fingerprint struct {
	Algorithm string `json:"algorithm"`
	Value     string `json:"value"`
}

type dtlsParameters struct {
	Role         string        `json:"role,omitempty"`
	Fingerprints []fingerprint `json:"fingerprints"`
}

type transportParams struct {
	ID             string         `json:"id"`
	IceParameters  iceParameters  `json:"iceParameters"`
	IceCandidates  []iceCandidate `json:"iceCandidates"`
	DtlsParameters dtlsParameters `json:"dtlsParameters"`
}

type rtcpFeedback struct {
	Type      string `json:"type"`
	Parameter string `json:"parameter,omitempty"`
}

type rtpCodec struct {
	MimeType     string         `json:"mimeType"`
	PayloadType  uint8          `json:"payloadType"`
	ClockRate    int            `json:"clockRate"`
	Parameters   map[string]any `json:"parameters"`
	RTCPFeedback []rtcpFeedback `json:"rtcpFeedback"`
}

type rtpEncoding struct {
	SSRC uint32 `json:"ssrc"`
	RTX  *struct {
		SSRC uint32 `json:"ssrc"`
	} `json:"rtx"`
}

type rtpHeaderExtension struct {
	URI string `json:"uri"`
	ID  int    `json:"id"`
}

type rtpParameters struct {
	Mid              string               `json:"mid"`
	Codecs           []rtpCodec           `json:"codecs"`
	HeaderExtensions []rtpHeaderExtension `json:"headerExtensions"`
	Encodings        []rtpEncoding        `json:"encodings"`
	RTCP             struct {
		CNAME string `json:"cname"`
	} `json:"rtcp"`
}

type consumerParams struct {
	ID            string        `json:"id"`
	Color         string        `json:"color"`
	RTPParameters rtpParameters `json:"rtpParameters"`
}

// remoteOffer writes the SDP offer a browser's mediasoup-client would make of
// the server's parameters: ICE-lite, one bundled sendonly video section per
// consumer, its SSRC (and RTX SSRC) declared so the answerer demultiplexes by SSRC.
func remoteOffer(t transportParams, consumers []consumerParams) (string, error) {
	var fp *fingerprint
	for i := range t.DtlsParameters.Fingerprints {
		if t.DtlsParameters.Fingerprints[i].Algorithm == "sha-256" {
			fp = &t.DtlsParameters.Fingerprints[i]
		}
	}
	if fp == nil {
		return "", fmt.Errorf("the server offers no sha-256 DTLS fingerprint")
	}
	mids := make([]string, len(consumers))
	for i, c := range consumers {
		if c.RTPParameters.Mid == "" {
			return "", fmt.Errorf("consumer %s has no mid", c.ID)
		}
		mids[i] = c.RTPParameters.Mid
	}
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\r\n", args...) }
	line("v=0")
	line("o=- 1 1 IN IP4 0.0.0.0")
	line("s=-")
	line("t=0 0")
	if t.IceParameters.IceLite {
		line("a=ice-lite")
	}
	line("a=group:BUNDLE %s", strings.Join(mids, " "))
	line("a=msid-semantic: WMS *")
	line("a=fingerprint:%s %s", fp.Algorithm, fp.Value)
	for _, c := range consumers {
		p := c.RTPParameters
		if len(p.Encodings) != 1 {
			return "", fmt.Errorf("consumer %s: expected one encoding, got %d", c.ID, len(p.Encodings))
		}
		pts := make([]string, len(p.Codecs))
		for i, codec := range p.Codecs {
			pts[i] = fmt.Sprint(codec.PayloadType)
		}
		line("m=video 7 UDP/TLS/RTP/SAVPF %s", strings.Join(pts, " "))
		line("c=IN IP4 127.0.0.1")
		line("a=mid:%s", p.Mid)
		line("a=sendonly")
		line("a=ice-ufrag:%s", t.IceParameters.UsernameFragment)
		line("a=ice-pwd:%s", t.IceParameters.Password)
		for _, cand := range t.IceCandidates {
			if cand.Protocol != "udp" {
				continue // the receivers speak ICE over UDP only
			}
			addr := cand.Address
			if addr == "" {
				addr = cand.IP
			}
			line("a=candidate:%s 1 udp %d %s %d typ %s", cand.Foundation, cand.Priority, addr, cand.Port, cand.Type)
		}
		line("a=end-of-candidates")
		line("a=setup:actpass")
		line("a=rtcp-mux")
		line("a=rtcp-rsize")
		for _, codec := range p.Codecs {
			name := strings.TrimPrefix(strings.TrimPrefix(codec.MimeType, "video/"), "audio/")
			line("a=rtpmap:%d %s/%d", codec.PayloadType, name, codec.ClockRate)
			if fmtp := fmtpOf(codec.Parameters); fmtp != "" {
				line("a=fmtp:%d %s", codec.PayloadType, fmtp)
			}
			for _, fb := range codec.RTCPFeedback {
				if fb.Parameter != "" {
					line("a=rtcp-fb:%d %s %s", codec.PayloadType, fb.Type, fb.Parameter)
				} else {
					line("a=rtcp-fb:%d %s", codec.PayloadType, fb.Type)
				}
			}
		}
		for _, h := range p.HeaderExtensions {
			line("a=extmap:%d %s", h.ID, h.URI)
		}
		enc := p.Encodings[0]
		msid := fmt.Sprintf("pels-%s %s", c.Color, c.ID)
		if enc.RTX != nil && enc.RTX.SSRC != 0 {
			line("a=ssrc-group:FID %d %d", enc.SSRC, enc.RTX.SSRC)
		}
		line("a=ssrc:%d cname:%s", enc.SSRC, p.RTCP.CNAME)
		line("a=ssrc:%d msid:%s", enc.SSRC, msid)
		if enc.RTX != nil && enc.RTX.SSRC != 0 {
			line("a=ssrc:%d cname:%s", enc.RTX.SSRC, p.RTCP.CNAME)
			line("a=ssrc:%d msid:%s", enc.RTX.SSRC, msid)
		}
	}
	return b.String(), nil
}

// fmtpOf writes codec parameters as an fmtp line's value, keys sorted.
func fmtpOf(params map[string]any) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%v", k, params[k])
	}
	return strings.Join(parts, ";")
}

// localFingerprints reads the answer's DTLS fingerprints for connectTransport.
func localFingerprints(sdp string) []fingerprint {
	var out []fingerprint
	seen := map[string]bool{}
	for _, l := range strings.Split(sdp, "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "a=fingerprint:") {
			continue
		}
		alg, value, ok := strings.Cut(strings.TrimPrefix(l, "a=fingerprint:"), " ")
		if ok && !seen[alg+value] {
			seen[alg+value] = true
			out = append(out, fingerprint{Algorithm: strings.ToLower(alg), Value: value})
		}
	}
	return out
}
