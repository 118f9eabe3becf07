package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRemoteOfferFromServerParameters(t *testing.T) {
	var tp transportParams
	_ = json.Unmarshal([]byte(`{"id":"t1","iceParameters":{"usernameFragment":"uf","password":"pw","iceLite":true},
	  "iceCandidates":[{"foundation":"udpcandidate","priority":1076302079,"address":"127.0.0.1","protocol":"udp","port":40000,"type":"host"},
	                   {"foundation":"tcpcandidate","priority":1076276479,"address":"127.0.0.1","protocol":"tcp","port":40000,"type":"host","tcpType":"passive"}],
	  "dtlsParameters":{"role":"auto","fingerprints":[{"algorithm":"sha-1","value":"AA"},{"algorithm":"sha-256","value":"BB:CC"}]}}`), &tp)
	var cs []consumerParams
	_ = json.Unmarshal([]byte(`[{"id":"c0","color":"green","rtpParameters":{"mid":"0",
	  "codecs":[{"mimeType":"video/VP8","payloadType":101,"clockRate":90000,"parameters":{},"rtcpFeedback":[{"type":"nack"},{"type":"nack","parameter":"pli"}]},
	            {"mimeType":"video/rtx","payloadType":102,"clockRate":90000,"parameters":{"apt":101},"rtcpFeedback":[]}],
	  "headerExtensions":[],"encodings":[{"ssrc":11,"rtx":{"ssrc":12}}],"rtcp":{"cname":"x"}}},
	 {"id":"c1","color":"yellow","rtpParameters":{"mid":"1",
	  "codecs":[{"mimeType":"video/VP8","payloadType":101,"clockRate":90000,"parameters":{},"rtcpFeedback":[{"type":"nack","parameter":"pli"}]}],
	  "headerExtensions":[],"encodings":[{"ssrc":21}],"rtcp":{"cname":"x"}}}]`), &cs)
	sdp, err := remoteOffer(tp, cs)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"a=ice-lite", "a=group:BUNDLE 0 1", "a=fingerprint:sha-256 BB:CC", "a=setup:actpass",
		"a=candidate:udpcandidate 1 udp 1076302079 127.0.0.1 40000 typ host",
		"m=video 7 UDP/TLS/RTP/SAVPF 101 102", "a=fmtp:102 apt=101", "a=rtcp-fb:101 nack pli",
		"a=ssrc-group:FID 11 12", "a=ssrc:21 cname:x",
	} {
		if !strings.Contains(sdp, want+"\r\n") {
			t.Errorf("offer lacks %q:\n%s", want, sdp)
		}
	}
	if strings.Contains(sdp, "tcpcandidate") {
		t.Error("offer has the TCP candidate")
	}
	if fps := localFingerprints("a=fingerprint:SHA-256 DD\r\na=fingerprint:SHA-256 DD\r\n"); len(fps) != 1 || fps[0].Algorithm != "sha-256" {
		t.Errorf("local fingerprints %+v", fps)
	}
}
