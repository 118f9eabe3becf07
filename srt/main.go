// pels-srt: the server's SRT listener. It accepts SRT callers (OBS, FFmpeg)
// on one UDP port and hands each one to the PELS server, which decides from
// its streamid (the stream key) whether it may publish: the caller is refused
// in the SRT handshake itself when it may not. An accepted caller's payload
// (MPEG-TS) goes to the server unchanged over the same hand-off connection.
//
// Hand-off (a Unix socket the server listens on): one connection per caller;
// this program writes one JSON line {"streamid","address"}, the server answers
// one JSON line {"accept":true} or {"accept":false,"code":N,"reason":"..."},
// then the caller's payload follows. Either side closing ends the caller.
// The program exits when its stdin closes (the server went).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"sync/atomic"
	"time"

	srt "github.com/datarhei/gosrt"
)

type handoffRequest struct {
	StreamID string `json:"streamid"`
	Address  string `json:"address"`
}

type handoffAnswer struct {
	Accept bool   `json:"accept"`
	Code   int    `json:"code"`
	Reason string `json:"reason"`
}

// The server answers a caller within this time, or it is refused.
const answerTimeout = 5 * time.Second

// rejectUnavailable: the server could not be asked (SRT's "resource" refusal).
const rejectUnavailable = srt.REJ_RESOURCE

func main() {
	listen := flag.String("listen", "", "host:port to listen on (UDP)")
	handoff := flag.String("handoff", "", "the server's hand-off Unix socket")
	latencyMs := flag.Int("latency-ms", 120, "SRT receive latency (the caller's, if larger, wins)")
	maxConns := flag.Int("max-connections", 16, "callers at once, accepted or being answered")
	flag.Parse()
	if *listen == "" || *handoff == "" {
		fmt.Fprintln(os.Stderr, "usage: pels-srt --listen HOST:PORT --handoff SOCKET [--latency-ms N] [--max-connections N]")
		os.Exit(2)
	}
	config := srt.DefaultConfig()
	config.ReceiverLatency = time.Duration(*latencyMs) * time.Millisecond
	config.PeerLatency = config.ReceiverLatency
	ln, err := srt.Listen("srt", *listen, config)
	if err != nil {
		fmt.Fprintf(os.Stderr, "listen %s: %v\n", *listen, err)
		os.Exit(1)
	}
	// The server reads this line: the listener is up.
	fmt.Printf("listening %s\n", ln.Addr().String())
	go func() {
		// The server went (its end of stdin closed): so does the listener.
		_, _ = io.Copy(io.Discard, os.Stdin)
		ln.Close()
		os.Exit(0)
	}()
	var open atomic.Int64
	for {
		req, err := ln.Accept2()
		if err != nil {
			if err == srt.ErrListenerClosed {
				return
			}
			continue
		}
		if open.Add(1) > int64(*maxConns) {
			open.Add(-1)
			req.Reject(srt.REJ_BACKLOG)
			continue
		}
		go func() {
			defer open.Add(-1)
			serve(req, *handoff)
		}()
	}
}

// serve asks the server about one caller, then carries its payload.
func serve(req srt.ConnRequest, handoff string) {
	host, _, err := net.SplitHostPort(req.RemoteAddr().String())
	if err != nil {
		host = req.RemoteAddr().String()
	}
	server, err := net.DialTimeout("unix", handoff, answerTimeout)
	if err != nil {
		req.Reject(rejectUnavailable)
		return
	}
	defer server.Close()
	line, _ := json.Marshal(handoffRequest{StreamID: req.StreamId(), Address: host})
	_ = server.SetDeadline(time.Now().Add(answerTimeout))
	if _, err := server.Write(append(line, '\n')); err != nil {
		req.Reject(rejectUnavailable)
		return
	}
	reader := bufio.NewReader(server)
	text, err := reader.ReadBytes('\n')
	var answer handoffAnswer
	if err != nil || json.Unmarshal(text, &answer) != nil {
		req.Reject(rejectUnavailable)
		return
	}
	if !answer.Accept {
		req.Reject(srt.RejectionReason(answer.Code))
		return
	}
	conn, err := req.Accept()
	if err != nil {
		return
	}
	defer conn.Close()
	_ = server.SetDeadline(time.Time{})
	// The server closes its end to drop the caller (taken over, key revoked).
	go func() {
		_, _ = io.Copy(io.Discard, reader)
		conn.Close()
	}()
	_, _ = io.Copy(server, conn)
}
