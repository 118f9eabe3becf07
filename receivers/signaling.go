package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/coder/websocket"
)

// signaling is the player's side of the server's /ws protocol: requests
// { id, method, data } answered by { id, ok, data | error }, and notifications.
type signaling struct {
	conn    *websocket.Conn
	mu      sync.Mutex
	nextID  int
	waiting map[int]chan reply
	onNote  func(name string, data json.RawMessage)
	done    chan struct{}
	err     error
}

type reply struct {
	ID    *int            `json:"id"`
	OK    bool            `json:"ok"`
	Data  json.RawMessage `json:"data"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Notification string `json:"notification"`
}

func dialSignaling(ctx context.Context, url string, onNote func(string, json.RawMessage)) (*signaling, error) {
	conn, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("signaling: %w", err)
	}
	// Notifications carry PSNR tables twice a second: well under this.
	conn.SetReadLimit(4 << 20)
	s := &signaling{conn: conn, waiting: map[int]chan reply{}, onNote: onNote, done: make(chan struct{})}
	go s.readLoop()
	return s, nil
}

func (s *signaling) readLoop() {
	defer close(s.done)
	for {
		_, data, err := s.conn.Read(context.Background())
		if err != nil {
			s.mu.Lock()
			s.err = err
			s.mu.Unlock()
			return
		}
		var r reply
		if json.Unmarshal(data, &r) != nil {
			continue
		}
		if r.Notification != "" {
			s.onNote(r.Notification, r.Data)
			continue
		}
		if r.ID == nil {
			continue
		}
		s.mu.Lock()
		ch := s.waiting[*r.ID]
		delete(s.waiting, *r.ID)
		s.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
}

// request sends one request and decodes its answer's data into out (may be nil).
func (s *signaling) request(ctx context.Context, method string, data any, out any) error {
	s.mu.Lock()
	s.nextID++
	id := s.nextID
	ch := make(chan reply, 1)
	s.waiting[id] = ch
	s.mu.Unlock()
	msg, err := json.Marshal(map[string]any{"id": id, "method": method, "data": data})
	if err != nil {
		return err
	}
	if err := s.conn.Write(ctx, websocket.MessageText, msg); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r := <-ch:
		if !r.OK {
			if r.Error != nil {
				return fmt.Errorf("%s: %s: %s", method, r.Error.Code, r.Error.Message)
			}
			return fmt.Errorf("%s: refused", method)
		}
		if out != nil {
			return json.Unmarshal(r.Data, out)
		}
		return nil
	case <-s.done:
		return fmt.Errorf("%s: signaling closed: %v", method, s.err)
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

func (s *signaling) close() {
	_ = s.conn.CloseNow()
}
